// A child process serving the kubelet API (anonymous, AlwaysAllow) over the log file named in
// argv[2], with the PKI in argv[3]; prints its port. The backpressure test measures its RSS.
import { startKubeletApi } from "./harness.ts";

const [logPath, pkiDir] = process.argv.slice(2);
const p = (n: string) => `${pkiDir}/${n}`;
const pki = {
  dir: pkiDir,
  serverCert: p("server.crt"),
  serverKey: p("server.key"),
  ca: p("ca.crt"),
  client: { cert: p("client.crt"), key: p("client.key") },
  foreign: { cert: p("foreign.crt"), key: p("foreign.key") },
  cleanup: () => {},
};
const api = await startKubeletApi(pki, { anonymous: true, logPath });
process.stdout.write(`${api.port}\n`);
