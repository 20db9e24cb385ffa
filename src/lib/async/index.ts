export { Channel, ChannelClosedError } from "./channel.ts";
export { Mailbox } from "./mailbox.ts";
export { Backoff, jitter, type BackoffOptions } from "./backoff.ts";
export { delay, runEvery, anySignal, isAbortError } from "./delay.ts";
