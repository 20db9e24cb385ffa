// The node's own record of its desired state, for starting without the apiserver (issue 27).
export { createCheckpoint, type Checkpoint } from "./checkpoint.ts";
