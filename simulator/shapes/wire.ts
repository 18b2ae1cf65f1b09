import type { OperationDef } from '../operation.js';

/** The answer styles the simulator can speak. */
export const SHAPE_NAMES = ['production', 'variant'] as const;
export type ShapesName = (typeof SHAPE_NAMES)[number];

/** One operation as a style puts it on the wire: published schemas plus the mappings to and from the handlers' records. */
export interface WireOperation extends OperationDef {
  /** The handler's record (production shape) as this style answers it. */
  toWire(data: unknown): unknown;
  /** A parsed query as the handler names it. */
  queryIn(query: Record<string, unknown>): Record<string, unknown>;
  /** A parsed body as the handler names it. */
  bodyIn(body: Record<string, unknown>): Record<string, unknown>;
  /** A request property as this style names it, for the property -> reasons map of a failure. */
  fieldOut(name: string): string;
}

/** An answer style: every operation with its wire shapes. */
export interface ShapeStyle {
  name: ShapesName;
  /** One line for the published specification. */
  description: string;
  operations: readonly WireOperation[];
}

const identity = <T>(v: T): T => v;

/** An operation exactly as the handlers produce and read it. */
export function unchanged(op: OperationDef): WireOperation {
  return { ...op, toWire: identity, queryIn: identity, bodyIn: identity, fieldOut: identity };
}
