/**
 * The part of Node's built-in `node:sqlite` (Node 22.13+, Electron 37+) that main uses. The
 * repository's @types/node (20.x, the oldest Node the tooling supports) predates the module;
 * these declarations follow the Node 24 documentation and go once @types/node describes it.
 */
declare module 'node:sqlite' {
  type SQLInputValue = null | number | bigint | string | NodeJS.ArrayBufferView;
  type SQLOutputValue = null | number | bigint | string | Uint8Array;

  interface DatabaseSyncOptions {
    open?: boolean;
    readOnly?: boolean;
    enableForeignKeyConstraints?: boolean;
    timeout?: number;
  }

  interface StatementResultingChanges {
    changes: number | bigint;
    lastInsertRowid: number | bigint;
  }

  class StatementSync {
    all(...params: SQLInputValue[]): Record<string, SQLOutputValue>[];
    all(named: Record<string, SQLInputValue>, ...params: SQLInputValue[]): Record<string, SQLOutputValue>[];
    get(...params: SQLInputValue[]): Record<string, SQLOutputValue> | undefined;
    get(named: Record<string, SQLInputValue>, ...params: SQLInputValue[]): Record<string, SQLOutputValue> | undefined;
    run(...params: SQLInputValue[]): StatementResultingChanges;
    run(named: Record<string, SQLInputValue>, ...params: SQLInputValue[]): StatementResultingChanges;
    iterate(...params: SQLInputValue[]): IterableIterator<Record<string, SQLOutputValue>>;
  }

  class DatabaseSync {
    constructor(path: string, options?: DatabaseSyncOptions);
    readonly isOpen: boolean;
    readonly isTransaction: boolean;
    close(): void;
    exec(sql: string): void;
    prepare(sql: string): StatementSync;
  }
}
