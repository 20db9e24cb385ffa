// Subcommands beside the agent, for main.ts: `bunlet crictl ...` over bunlet's own CRI client.
export { runCrictl } from "./crictl/index.ts";
