/**
 * Mirror pods: the apiserver's copies of the static pods bunlet runs (create, replace, delete
 * orphans) and the view of the mirror pods on this node. Depends on lib, api and apiclient.
 */
export { createMirrorPods, type MirrorPods } from "./mirror.ts";
