/**
 * component-helpers' sysctl NormalizeName: a sysctl may be written with slashes
 * ("kernel/shm_rmid_forced", "net/ipv4/conf/eth0.100/x"); when its first separator is a slash,
 * dots and slashes swap, giving the dotted name runc and the admission allowlist use
 * ("net.ipv4.conf.eth0/100.x").
 */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  if (first < 0 || name[first] === ".") return name;
  return name.replace(/[./]/g, (c) => (c === "." ? "/" : "."));
}
