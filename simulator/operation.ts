import type { z, ZodType } from 'zod';

/** One operation of the service: the router and the specification both read this table. */
export interface OperationDef {
  operationId: string;
  method: 'get' | 'post' | 'delete';
  path: string;
  tag: string;
  summary: string;
  body?: ZodType;
  bodyName?: string;
  query?: z.ZodObject;
  params?: z.ZodObject;
  /** Response Data schema, or 'binary' for GeoTIFF output. */
  response: ZodType | 'binary';
  envelope?: string;
  deprecated?: boolean;
}
