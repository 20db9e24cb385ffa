/**
 * The one error type the fake's handlers throw: a gRPC status code plus the message a real
 * runtime would send. The server wiring turns it into a gRPC status on the wire; anything else
 * thrown by a handler becomes UNKNOWN, as containerd's errdefs.ToGRPC does for plain errors.
 */
import { GrpcCode } from "../../src/cri/index.ts";

export class FakeCriError extends Error {
  readonly code: GrpcCode;

  constructor(code: GrpcCode, message: string) {
    super(message);
    this.name = "FakeCriError";
    this.code = code;
  }
}

export const notFound = (message: string) => new FakeCriError(GrpcCode.NOT_FOUND, message);
export const unknown = (message: string) => new FakeCriError(GrpcCode.UNKNOWN, message);
