import { describe, expect, test } from "bun:test";
import { Quantity, QuantityError } from "../../../src/api/index.ts";

const q = (s: string) => Quantity.parse(s);

// apimachinery TestQuantityParse: input, exact amount, String(), format. The canonical strings
// were checked against k8s.io/apimachinery v0.37.2.
const parseTable: [string, string, string, string][] = [
    ["0", "0", "0", "DecimalSI"],
    ["0n", "0", "0", "DecimalSI"],
    ["0u", "0", "0", "DecimalSI"],
    ["0m", "0", "0", "DecimalSI"],
    ["0Ki", "0", "0", "BinarySI"],
    ["0k", "0", "0", "DecimalSI"],
    ["0Mi", "0", "0", "BinarySI"],
    ["0M", "0", "0", "DecimalSI"],
    ["0Gi", "0", "0", "BinarySI"],
    ["0G", "0", "0", "DecimalSI"],
    ["0Ti", "0", "0", "BinarySI"],
    ["0T", "0", "0", "DecimalSI"],
    ["1", "1", "1", "DecimalSI"],
    ["1Ki", "1024", "1Ki", "BinarySI"],
    ["8Ki", "8192", "8Ki", "BinarySI"],
    ["7Mi", "7340032", "7Mi", "BinarySI"],
    ["6Gi", "6442450944", "6Gi", "BinarySI"],
    ["5Ti", "5497558138880", "5Ti", "BinarySI"],
    ["4Pi", "4503599627370496", "4Pi", "BinarySI"],
    ["3Ei", "3458764513820540928", "3Ei", "BinarySI"],
    ["10Ti", "10995116277760", "10Ti", "BinarySI"],
    ["100Ti", "109951162777600", "100Ti", "BinarySI"],
    ["5n", "0.000000005", "5n", "DecimalSI"],
    ["4u", "0.000004", "4u", "DecimalSI"],
    ["3m", "0.003", "3m", "DecimalSI"],
    ["9", "9", "9", "DecimalSI"],
    ["8k", "8000", "8k", "DecimalSI"],
    ["50k", "50000", "50k", "DecimalSI"],
    ["7M", "7000000", "7M", "DecimalSI"],
    ["6G", "6000000000", "6G", "DecimalSI"],
    ["5T", "5000000000000", "5T", "DecimalSI"],
    ["40T", "40000000000000", "40T", "DecimalSI"],
    ["300T", "300000000000000", "300T", "DecimalSI"],
    ["2P", "2000000000000000", "2P", "DecimalSI"],
    ["1E", "1000000000000000000", "1E", "DecimalSI"],
    ["1E-3", "0.001", "1E-3", "DecimalExponent"],
    ["1e3", "1000", "1e3", "DecimalExponent"],
    ["1E6", "1000000", "1E6", "DecimalExponent"],
    ["1e9", "1000000000", "1e9", "DecimalExponent"],
    ["1E12", "1000000000000", "1E12", "DecimalExponent"],
    ["1e15", "1000000000000000", "1e15", "DecimalExponent"],
    ["1E18", "1000000000000000000", "1E18", "DecimalExponent"],
    ["1e14", "100000000000000", "100e12", "DecimalExponent"],
    ["1e13", "10000000000000", "10e12", "DecimalExponent"],
    ["1e3", "1000", "1e3", "DecimalExponent"],
    ["100.035k", "100035", "100.035k", "DecimalSI"],
    ["0.001", "0.001", "1m", "DecimalSI"],
    ["0.0005k", "0.5", "500m", "DecimalSI"],
    ["0.005", "0.005", "5m", "DecimalSI"],
    ["0.05", "0.05", "50m", "DecimalSI"],
    ["0.5", "0.5", "500m", "DecimalSI"],
    ["0.00050k", "0.5", "500m", "DecimalSI"],
    ["0.00500", "0.005", "5m", "DecimalSI"],
    ["0.05000", "0.05", "50m", "DecimalSI"],
    ["0.50000", "0.5", "500m", "DecimalSI"],
    ["0.5e0", "0.5", "500e-3", "DecimalExponent"],
    ["0.5e-1", "0.05", "50e-3", "DecimalExponent"],
    ["0.5e-2", "0.005", "5e-3", "DecimalExponent"],
    ["0.5e0", "0.5", "500e-3", "DecimalExponent"],
    ["10.035M", "10035000", "10.035M", "DecimalSI"],
    ["1.2e3", "1200", "1200", "DecimalExponent"],
    ["1.3E+6", "1300000", "1300e3", "DecimalExponent"],
    ["1.40e9", "1400000000", "1400e6", "DecimalExponent"],
    ["1.53E12", "1530000000000", "1530e9", "DecimalExponent"],
    ["1.6e15", "1600000000000000", "1600e12", "DecimalExponent"],
    ["1.7E18", "1700000000000000000", "1700e15", "DecimalExponent"],
    ["9.01", "9.01", "9010m", "DecimalSI"],
    ["8.1k", "8100", "8100", "DecimalSI"],
    ["7.123456M", "7123456", "7.123456M", "DecimalSI"],
    ["6.987654321G", "6987654321", "6.987654321G", "DecimalSI"],
    ["5.444T", "5444000000000", "5.444T", "DecimalSI"],
    ["40.1T", "40100000000000", "40100G", "DecimalSI"],
    ["300.2T", "300200000000000", "300200G", "DecimalSI"],
    ["2.5P", "2500000000000000", "2500T", "DecimalSI"],
    ["1.01E", "1010000000000000000", "1010P", "DecimalSI"],
    ["3.001n", "0.000000004", "4n", "DecimalSI"],
    ["1.1E-9", "0.000000002", "2e-9", "DecimalExponent"],
    ["0.0000000001", "0.000000001", "1n", "DecimalSI"],
    ["0.0000000005", "0.000000001", "1n", "DecimalSI"],
    ["0.00000000050", "0.000000001", "1n", "DecimalSI"],
    ["0.5e-9", "0.000000001", "1e-9", "DecimalExponent"],
    ["0.9n", "0.000000001", "1n", "DecimalSI"],
    ["0.00000012345", "0.000000124", "124n", "DecimalSI"],
    ["0.00000012354", "0.000000124", "124n", "DecimalSI"],
    ["9Ei", "9223372036854775807", "9223372036854775807", "BinarySI"],
    ["9223372036854775807Ki", "9223372036854775807", "9223372036854775807", "BinarySI"],
    ["12E", "12000000000000000000", "12E", "DecimalSI"],
    ["100.035Ki", "102435.84", "102435840m", "BinarySI"],
    ["0.5Mi", "524288", "512Ki", "BinarySI"],
    ["0.05Gi", "53687091.2", "53687091200m", "BinarySI"],
    ["0.025Ti", "27487790694.4", "27487790694400m", "BinarySI"],
    ["0.000000000001Ki", "0.000000002", "2n", "DecimalSI"],
    [".001", "0.001", "1m", "DecimalSI"],
    [".0001k", "0.1", "100m", "DecimalSI"],
    ["1.", "1", "1.", "DecimalSI"],
    ["1.G", "1000000000", "1.G", "DecimalSI"],
];

describe("parsing every form the API accepts (TestQuantityParse)", () => {
  test.each(parseTable)("%s is %s, shown as %s (%s)", (input, amount, canonical, format) => {
    const got = q(input);
    expect(got.cmp(q(amount))).toBe(0);
    expect(got.toString()).toBe(canonical);
    expect(got.format).toBe(format as never);
  });

  test.each(parseTable)("-%s is the negative, same format", (input, amount, _c, format) => {
    const got = q(`-${input}`);
    expect(got.cmp(q(`-${amount}`))).toBe(0);
    expect(got.format).toBe(format as never);
  });

  test.each(parseTable)("+%s is the same amount", (input, amount, _c, format) => {
    const got = q(`+${input}`);
    expect(got.cmp(q(amount))).toBe(0);
    expect(got.format).toBe(format as never);
  });
});

describe("rejecting the rest with apimachinery's messages", () => {
  const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const suffix = "unable to parse quantity's suffix";
  const numeric = "unable to parse numeric part of quantity";
  test.each([
    ["", formatWrong],
    ["1.1.M", formatWrong],
    ["1+1.0M", formatWrong],
    ["0.1mi", suffix],
    ["0.1am", formatWrong],
    ["aoeu", formatWrong],
    [".5i", suffix],
    ["1i", suffix],
    ["-3.01i", suffix],
    ["-3.01e-", suffix],
    [" 1", formatWrong],
    ["1 ", formatWrong],
    ["Non-Numeric", formatWrong],
    ["64MB", formatWrong],
    ["lots", formatWrong],
    ["1K", suffix],
    ["1Gb", formatWrong],
    ["1e", suffix],
    ["1e99999999999999999999", suffix],
    ["e-20", numeric],
    [".e-20", numeric],
  ])("%p: %s", (input, message) => {
    let err: unknown;
    try {
      q(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(QuantityError);
    expect((err as Error).message).toBe(message);
  });

  test("odd but valid: a lone sign, a dot or a bare suffix is zero", () => {
    for (const s of ["+", "-", ".", "-.", "Ki", "m", "e100"]) expect(q(s).isZero()).toBe(true);
  });
});

describe("String() is the canonical form (TestQuantityString, TestQuantityParseEmit, TestParseQuantity)", () => {
  test.each([
    ["1024Mi", "1Gi"],
    ["307200Ki", "300Mi"],
    ["1025024Mi", "1001Gi"],
    ["1024Gi", "1Ti"],
    ["5000m", "5"],
    ["0.5", "500m"],
    ["1000M", "1G"],
    ["0.001T", "1G"],
    ["1000u", "1m"],
    ["1.08", "1080m"],
    ["1080000000n", "1080m"],
    [".001e12", "1e9"],
    ["0.001e0", "1e-3"],
    ["1000e-12", "1e-9"],
    ["00", "0"],
    [".001Ki", "1024m"],
    [".000001Ki", "1024u"],
    [".000000001Ki", "1024n"],
    [".000000000001Ki", "2n"],
    ["-.001Ki", "-1024m"],
    ["999999999999999999.1", "999999999999999999100m"],
    ["9999999999999999999000m", "9999999999999999999"],
    ["-1000000000000000000.0", "-1E"],
    ["10000000000000000000000m", "10E"],
    ["1.0000000000000000001E", "1000000000000000000100m"],
    ["-9223372036854775807.1", "-9223372036854775807100m"],
    ["1.5Gi", "1536Mi"],
    ["1.5Ki", "1536"],
    ["1023Ki", "1023Ki"],
    ["1.1Ki", "1126400m"],
    ["0.3", "300m"],
    ["1e1000", "10e999"],
    ["1000E", "1e21"],
  ])("%s is shown as %s", (input, canonical) => expect(q(input).toString()).toBe(canonical));

  test.each([
    "1Gi", "300Mi", "6Ki", "1001Gi", "1Ti", "5", "500m", "1G", "1m", "80m", "1080m", "300M", "1T",
    "1234567M", "1234567m", "3k", "1025", "0", "1e9", "1e-3", "1e-9", "80e-3", "300e6", "1e12", "1e3",
    "3e3", "1n", "80n", "1080n", "1u", "80u", "1080u", "-999999999999999999", "9999999999999999999",
    "10000000000000000001", "-9223372036854775809",
  ])("%s is already canonical", (input) => expect(q(input).toString()).toBe(input));

  // Go keeps the text it parsed whenever its fast path finds it canonical enough, sign and
  // leading zeros included; the apiserver shows and compares that text.
  test.each([
    ["+1", "+1"],
    ["+1k", "+1k"],
    ["01k", "01k"],
    ["+1Ki", "+1Ki"],
    ["1E3", "1E3"],
    ["100.035k", "100.035k"],
    ["1.", "1."],
    ["-0", "0"],
    ["+0", "0"],
    ["8Ki", "8Ki"],
    ["1024Ki", "1Mi"],
  ])("%s keeps the form %s", (input, shown) => expect(q(input).toString()).toBe(shown));
});

describe("int64 values round up as the kubelet reads them", () => {
  test.each([
    ["9m", 1n, 9n],
    ["700m", 1n, 700n],
    ["100m", 1n, 100n],
    ["8.3M", 8300000n, 8300000000n],
    ["1.5", 2n, 1500n],
    ["0.1", 1n, 100n],
    ["1n", 1n, 1n],
    ["1.5Gi", 1610612736n, 1610612736000n],
    ["100.035Ki", 102436n, 102435840n],
    ["0", 0n, 0n],
    ["-1.5", -2n, -1500n],
    ["-9.01", -10n, -9010n],
    ["9Ei", 9223372036854775807n, 9223372036854775807n],
  ])("%s: Value %d, MilliValue %d", (input, value, milli) => {
    expect(q(input).value()).toBe(value);
    expect(q(input).milliValue()).toBe(milli);
  });

  test("beyond int64, where Go overflows, the values saturate", () => {
    expect(q("1e30").value()).toBe(9223372036854775807n);
    expect(q("12E").milliValue()).toBe(9223372036854775807n);
    expect(q("-1e1000").value()).toBe(-9223372036854775808n);
  });

  // TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to).
  test.each([
    ["1n", -9, 1n],
    ["1n", -6, 1n],
    ["1n", -3, 1n],
    ["1n", 0, 1n],
    ["1u", -9, 1000n],
    ["1u", -6, 1n],
    ["1u", -3, 1n],
    ["1u", 0, 1n],
    ["1m", -9, 1000000n],
    ["1m", -6, 1000n],
    ["1m", -3, 1n],
    ["1m", 0, 1n],
    ["1", -9, 1000000000n],
    ["1", -6, 1000000n],
    ["1", -3, 1000n],
    ["1", 0, 1n],
    ["1e2", -2, 10000n],
  ] as const)("%s at scale %d is %d", (input, scale, expected) => expect(q(input).scaledValue(scale)).toBe(expected));

  test("new quantities from integers", () => {
    expect(Quantity.of(8 * 2 ** 30, "BinarySI").toString()).toBe("8Gi");
    expect(Quantity.ofMilli(4000, "DecimalSI").toString()).toBe("4");
    expect(Quantity.ofMilli(1500, "BinarySI").toString()).toBe("1500m");
  });
});

describe("comparing (TestQuantityCmp)", () => {
  test.each([
    ["0", "0", 0],
    ["100m", "50m", 1],
    ["50m", "100m", -1],
    ["10000T", "100Gi", 1],
    ["1", "1000m", 0],
    ["1Ki", "1024", 0],
    ["-1", "1m", -1],
    ["1e1000", "1e999", 1],
    ["-1e1000", "-1e999", -1],
    ["1n", "0", 1],
  ] as const)("%s vs %s is %d", (a, b, expected) => expect(q(a).cmp(q(b))).toBe(expected));

  test("zero", () => {
    expect(Quantity.zero.isZero()).toBe(true);
    expect(q("0Ki").equal(Quantity.zero)).toBe(true);
    expect(q("-1m").sign()).toBe(-1);
  });
});

describe("JSON values (UnmarshalJSON, TestJSONWhitespace)", () => {
  test.each([
    [" 1", "1"],
    ["1 ", "1"],
    [1, "1"],
    [10, "10"],
    [-1, "-1"],
    [0.5, "500m"],
    [1e21, "1e+21"],
    [1.5e-7, "150e-9"],
  ] as const)("%p is %s", (input, expected) => expect(Quantity.fromJSON(input).toString()).toBe(expected));
});
