// The CRI contract against the fake runtime, scripted to run the contract's programs the way
// busybox does under containerd.
import { startFakeCri, DEFAULT_IMAGES } from "../fake-cri/index.ts";
import { criContract, programs } from "./cri-contract.ts";

criContract("fake CRI", async () => {
  const cri = await startFakeCri();
  cri.setContainerBehavior({ command: programs.exit3 }, { afterMs: 0, exitCode: 3 });
  cri.setContainerBehavior({ command: programs.succeed }, { afterMs: 0, exitCode: 0 });
  cri.setContainerBehavior({ command: programs.trapTerm }, { stopExitCode: 0 });
  cri.setExecResult(programs.execOutput, { stdout: "out\n", stderr: "err\n", exitCode: 3 });
  cri.setExecResult(programs.execSlow, { delayMs: 5000 });
  return {
    endpoint: cri.endpoint,
    images: { busybox: DEFAULT_IMAGES[0], pause: DEFAULT_IMAGES[1] },
    eventsSupported: true,
    eventStreamOpen: () => cri.events.whenSubscribers(1),
    stop: () => cri.stop(),
  };
});
