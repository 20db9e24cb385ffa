/**
 * --max-open-files (maxOpenFiles): the kubelet sets RLIMIT_NOFILE, soft and hard, to it at start
 * (pkg/util/rlimit SetNumFiles) and only logs when it cannot. Neither Bun nor node:process can
 * set a resource limit, so this calls libc's setrlimit through bun:ffi; on a libc it cannot load
 * or a refusal (raising the hard limit needs CAP_SYS_RESOURCE), bunlet logs and goes on with the
 * limit it has, as the kubelet does.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import type { Logger } from "../lib/index.ts";

const RLIMIT_NOFILE = 7;
const LIBCS = ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];

function setrlimitNoFile(n: number): string | undefined {
  for (const name of LIBCS) {
    let lib;
    try {
      lib = dlopen(name, { setrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
    } catch {
      continue;
    }
    try {
      // struct rlimit { rlim_t rlim_cur; rlim_t rlim_max; }, two 64-bit words on 64-bit Linux.
      const limits = new BigUint64Array([BigInt(n), BigInt(n)]);
      return lib.symbols.setrlimit(RLIMIT_NOFILE, ptr(limits)) === 0 ? undefined : "setrlimit(RLIMIT_NOFILE) was refused";
    } finally {
      lib.close();
    }
  }
  return `no C library to call setrlimit in (tried ${LIBCS.join(", ")})`;
}

export function setMaxOpenFiles(maxOpenFiles: number, log: Logger): void {
  const problem = setrlimitNoFile(maxOpenFiles);
  if (problem) log.error("Failed to set rlimit on max file handles; keeping the current limit", { maxOpenFiles, err: problem });
  else log.debug("Set the limit on open files", { maxOpenFiles }, 2);
}
