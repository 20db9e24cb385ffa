// The API objects pods read (the kubelet's configMapManager, secretManager, service lister and
// token manager's TokenRequest), through the node's checkpoint when there is one (--offline-start).
export { createApiObjects } from "./objects.ts";
