// Bytes written into one buffer that grows by doubling, read back as a view: the base of the writers that lay out
// a binary record (a site lane's day snapshot, lanes/snapshot.ts) or a protocol message (a batch's COPY,
// writer/copy-binary.ts). Subclasses write their own encodings through `room`, `bytes` and `length`.
import { Buffer } from "node:buffer";

export class ByteWriter {
  bytes: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.bytes = Buffer.allocUnsafe(capacity);
  }

  /** Makes room for `n` more bytes. */
  room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(next, 0, 0, this.length);
    this.bytes = next;
  }

  byte(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  /** `value`'s bytes as they are. */
  raw(value: Uint8Array): void {
    this.room(value.length);
    this.bytes.set(value, this.length);
    this.length += value.length;
  }

  /** The bytes written so far (a view, not a copy). */
  written(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}
