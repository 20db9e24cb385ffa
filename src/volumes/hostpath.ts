/**
 * The hostPath volume plugin's SetUp (pkg/volume/hostpath host_path.go): the path may not climb
 * with "..", and its `type` is checked before any container mounts it. "" checks nothing;
 * DirectoryOrCreate and FileOrCreate create a missing path (0755 directories, 0644 empty file);
 * every other type must find the path already there, of exactly that type. A failed check creates
 * nothing, so the runtime never gets the chance to create a missing bind source as a directory.
 *
 * Messages are the kubelet's: "hostPath type check failed: <path> is not a file" for a missing
 * path, with ", it's a Directory" added when something of another type is there (upstream master
 * names the type it found).
 */
import { closeSync, mkdirSync, openSync, statSync, type Stats } from "node:fs";

/** The kubelet's hostutil FileType values. */
type FileType = "Directory" | "File" | "Socket" | "CharDevice" | "BlockDevice";

const descriptions: Record<FileType, string> = {
  Directory: "directory",
  File: "file",
  Socket: "socket file",
  CharDevice: "character device",
  BlockDevice: "block device",
};

/** A hostPath volume that cannot be set up; the message is the kubelet's. */
export class HostPathError extends Error {
  override readonly name = "HostPathError";
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** What SetUp needs from the filesystem (tests pass fakes). */
export interface HostPathFs {
  /** stat(2) following symlinks; undefined when nothing is there. */
  stat(path: string): Stats | undefined;
  mkdirAll(path: string): void;
  createFile(path: string): void;
}

export const realHostPathFs: HostPathFs = {
  stat(path) {
    try {
      return statSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
      throw err;
    }
  },
  mkdirAll: (path) => void mkdirSync(path, { recursive: true, mode: 0o755 }),
  // O_CREAT without O_TRUNC: an existing file (or one created meanwhile) is left as it is.
  createFile: (path) => closeSync(openSync(path, "a", 0o644)),
};

function fileType(st: Stats): FileType | undefined {
  if (st.isDirectory()) return "Directory";
  if (st.isFile()) return "File";
  if (st.isSocket()) return "Socket";
  if (st.isCharacterDevice()) return "CharDevice";
  if (st.isBlockDevice()) return "BlockDevice";
  return undefined;
}

function typeMatchedOrError(path: string, expected: FileType, fs: HostPathFs): void {
  const st = fs.stat(path);
  const what = descriptions[expected];
  if (st === undefined) throw new HostPathError(path, `hostPath type check failed: ${path} is not a ${what}`);
  const found = fileType(st);
  if (found === undefined) {
    throw new HostPathError(
      path,
      `hostPath type check failed, ${path} is not a ${what}, unable to determine its type: only recognise file, directory, socket, block device and character device`,
    );
  }
  if (found !== expected) throw new HostPathError(path, `hostPath type check failed: ${path} is not a ${what}, it's a ${found}`);
}

/** SetUp of one hostPath volume; throws HostPathError with the kubelet's message. */
export function setUpHostPath(path: string, type: string, fs: HostPathFs = realHostPathFs): void {
  if (path.split("/").includes("..")) throw new HostPathError(path, `invalid HostPath \`${path}\`: must not contain '..'`);
  switch (type) {
    case "":
      return;
    case "DirectoryOrCreate":
      if (fs.stat(path) === undefined) return fs.mkdirAll(path);
      return typeMatchedOrError(path, "Directory", fs);
    case "Directory":
      return typeMatchedOrError(path, "Directory", fs);
    case "FileOrCreate":
      if (fs.stat(path) === undefined) return fs.createFile(path);
      return typeMatchedOrError(path, "File", fs);
    case "File":
    case "Socket":
    case "CharDevice":
    case "BlockDevice":
      return typeMatchedOrError(path, type, fs);
    default:
      throw new HostPathError(path, `${type} is an invalid volume type`);
  }
}
