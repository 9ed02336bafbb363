import type { Readable } from "node:stream";

/**
 * What the blob store needs from a place to keep bytes. Back-ends know nothing of encryption or names: keys are
 * the relative paths of format.ts `layout`. Every write is atomic: a reader sees a whole object or none.
 */
export interface Backend {
  /** Starts a temporary object that becomes visible only through commitTemp. */
  createTemp(): Promise<TempWriter>;
  /**
   * Makes a finished temporary object of `size` bytes visible under key, unless key already exists (then the
   * temporary object is discarded). Returns whether this call created the key. Durable when it returns.
   * Refuses (IntegrityError) when the temporary object does not hold exactly `size` bytes.
   */
  commitTemp(tempId: string, key: string, size: number): Promise<boolean>;
  discardTemp(tempId: string): Promise<void>;
  /** Length in bytes, or null when there is no such object. */
  size(key: string): Promise<number | null>;
  /** Last modification time, or null when there is no such object. */
  modified(key: string): Promise<Date | null>;
  /** The first min(n, size) bytes and the object's size in one request; null when absent. */
  readHead(key: string, n: number): Promise<{ bytes: Buffer; size: number } | null>;
  /** Whole small object, or null when absent. */
  readSmall(key: string): Promise<Buffer | null>;
  /** Bytes start..end inclusive; null when the object is absent. */
  readRange(key: string, start: number, end: number): Promise<Readable | null>;
  /**
   * Atomically writes a small object. "create" leaves an existing object alone and returns false (best effort
   * on S3 servers that ignore If-None-Match); "replace" overwrites. Durable when it returns.
   */
  writeSmall(key: string, data: Buffer, mode: "create" | "replace"): Promise<boolean>;
  remove(key: string): Promise<void>;
  /**
   * The plain file that holds key, when this back-end keeps objects as files on this machine (so a worker thread
   * may read one directly); undefined for remote storage.
   */
  localPath?(key: string): string;
  /** Keys under prefix in ascending byte order, so a blob comes just before its sidecars. */
  list(prefix: string): AsyncIterable<string>;
  /** Temporary objects left behind (by crashes) with their last modification time. */
  listTemp(): AsyncIterable<{ id: string; modified: Date }>;
  close(): Promise<void>;
}

export interface TempWriter {
  readonly id: string;
  write(data: Buffer): Promise<void>;
  /**
   * Flushes and makes the bytes durable (or, for a small S3 object, holds them for commitTemp to PUT in place);
   * after this, commitTemp or discardTemp must be called.
   */
  finish(): Promise<void>;
  /** Gives up and removes whatever was written; never throws. */
  abort(): Promise<void>;
}
