// Lifecycle hook runners (exec via CRI ExecSync, httpGet, sleep).
export { HookError, runHandler, type HookOptions } from "./hooks.ts";
