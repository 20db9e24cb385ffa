// The kubelet core: the composition root (startAgent) and what main.ts needs from it.
export { startAgent, type Agent } from "./wire.ts";
