export * from "./v1.ts";
export { Quantity, QuantityError, type QuantityFormat } from "./quantity.ts";
