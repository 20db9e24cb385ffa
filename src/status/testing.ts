// Test helpers of the status layer: the resize conditions store on its own, for the tests of the
// allocation manager and the kubelet core, which drive it as the status manager's owner would.
export { createResizeConditions } from "./resize-conditions.ts";
