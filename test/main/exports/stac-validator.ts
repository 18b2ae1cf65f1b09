import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: depending on the loader its default import is the plugin or the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const SCHEMA_DIR = path.join(import.meta.dirname, '../../fixtures/stac');

/** Validators of the vendored STAC 1.0.0 schemas (see test/fixtures/stac/README.md), with formats. */
export interface StacValidators {
  catalog: ValidateFunction;
  item: ValidateFunction;
  /** An extension schema by its URL (as listed in stac_extensions). */
  extension(url: string): ValidateFunction;
  featureCollection: ValidateFunction;
}

export function stacValidators(): StacValidators {
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  addFormats(ajv);
  for (const name of readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json'))) {
    ajv.addSchema(JSON.parse(readFileSync(path.join(SCHEMA_DIR, name), 'utf8')) as object);
  }
  const get = (id: string): ValidateFunction => {
    const v = ajv.getSchema(id) ?? ajv.getSchema(`${id}#`);
    if (!v) throw new Error(`No vendored schema ${id}`);
    return v;
  };
  return {
    catalog: get('https://schemas.stacspec.org/v1.0.0/catalog-spec/json-schema/catalog.json'),
    item: get('https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json'),
    extension: get,
    featureCollection: get('https://geojson.org/schema/FeatureCollection.json'),
  };
}

/** Errors of one validation as readable lines (empty when valid). */
export function problems(validate: ValidateFunction, value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message ?? ''}`);
}

/** Validates an exported catalog folder: the catalog, then every item it links, each against the core and its extensions. */
export function validateCatalogFolder(dir: string, v: StacValidators = stacValidators()): { catalog: Record<string, any>; items: { file: string; json: Record<string, any> }[]; errors: string[] } {
  const catalog = JSON.parse(readFileSync(path.join(dir, 'catalog.json'), 'utf8')) as Record<string, any>;
  const errors = problems(v.catalog, catalog).map((e) => `catalog.json${e}`);
  const items = (catalog.links as { rel: string; href: string }[])
    .filter((l) => l.rel === 'item')
    .map((l) => {
      const file = path.resolve(dir, l.href);
      return { file, json: JSON.parse(readFileSync(file, 'utf8')) as Record<string, any> };
    });
  for (const { file, json } of items) {
    const name = path.relative(dir, file);
    errors.push(...problems(v.item, json).map((e) => `${name}${e}`));
    for (const ext of json.stac_extensions as string[]) errors.push(...problems(v.extension(ext), json).map((e) => `${name} (${ext})${e}`));
  }
  return { catalog, items, errors };
}
