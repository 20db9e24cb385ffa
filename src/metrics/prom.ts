/**
 * prom-client's metric classes and registry, each loaded from its own file. The package's index
 * also loads its cluster aggregator (node:cluster), push gateway, Summary and default collectors,
 * none of which bunlet uses: about 3 MiB of the agent's memory before it does anything
 * (scripts/bench-modules.ts; docs/lean.md, "What loading a module costs"). The types are the
 * package's own.
 */
import type * as prom from "prom-client";
import CounterClass from "prom-client/lib/counter";
import GaugeClass from "prom-client/lib/gauge";
import HistogramClass from "prom-client/lib/histogram";
import RegistryClass from "prom-client/lib/registry";

export const Counter: typeof prom.Counter = CounterClass;
export type Counter<T extends string = string> = prom.Counter<T>;
export const Gauge: typeof prom.Gauge = GaugeClass;
export type Gauge<T extends string = string> = prom.Gauge<T>;
export const Histogram: typeof prom.Histogram = HistogramClass;
export type Histogram<T extends string = string> = prom.Histogram<T>;
export const Registry: typeof prom.Registry = RegistryClass;
export type Registry = prom.Registry;
