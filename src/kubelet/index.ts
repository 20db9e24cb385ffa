// The composition root: startAgent, the only thing main.ts needs from it.
export { startAgent, type Agent } from "./wire.ts";
