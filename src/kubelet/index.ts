// The composition root (startAgent) and the settings main.ts checks before it starts anything.
export { startAgent, type Agent } from "./wire.ts";
export { evictionThresholds } from "./wire-upkeep.ts";
export { checkCgroupDriver } from "./wire-cm.ts";
