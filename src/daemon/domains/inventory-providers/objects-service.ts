import {
  OBJECT_TYPE,
  type InventoryObject,
  type ObjectList,
  type ObjectTypeCounts,
  type ObjectTypes,
} from '../../../shared/api/inventory-objects.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { ObjectFilter, ObjectRow, ObjectsRepo } from './objects-repo.js';
import { INVENTORY_PLUGINS } from './plugins/registry.js';

const notFound = () => problems.resourceNotFound('Inventory object');

function objectView(row: ObjectRow): InventoryObject {
  return {
    id: row.id,
    org_id: row.org_id,
    object_type: row.object_type,
    provider_id: row.provider_id,
    external_id: row.external_id,
    name: row.name,
    data: row.data_json,
    stale: row.deleted_at !== null,
    provider_updated_at: row.provider_updated_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Inventory objects of the active organization (`inventory_object:view`): what its providers imported. */
export class ObjectsService {
  constructor(private readonly repo: ObjectsRepo) {}

  /** The types plugins import and those present in the organization (a static document names its own). */
  async types(orgId: string): Promise<ObjectTypes> {
    const byType = new Map<string, string[]>();
    for (const plugin of INVENTORY_PLUGINS.values()) {
      for (const type of plugin.objectTypes) byType.set(type, [...(byType.get(type) ?? []), plugin.type]);
    }
    for (const type of await this.repo.types(orgId)) if (!byType.has(type)) byType.set(type, []);
    return {
      items: [...byType.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([object_type, provider_types]) => ({ object_type, provider_types })),
    };
  }

  async counts(orgId: string): Promise<ObjectTypeCounts> {
    return { items: await this.repo.typeCounts(orgId) };
  }

  async list(orgId: string, objectType: string, filter: ObjectFilter): Promise<ObjectList> {
    if (!OBJECT_TYPE.test(objectType)) throw problems.resourceNotFound('Inventory object type');
    const { rows, total } = await this.repo.list(orgId, objectType, filter);
    return { items: rows.map(objectView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(orgId: string, objectType: string, id: string): Promise<InventoryObject> {
    const row = OBJECT_TYPE.test(objectType) && isUuid(id) ? await this.repo.find(orgId, objectType, id) : undefined;
    if (!row) throw notFound();
    return objectView(row);
  }

  async resolve(
    orgId: string,
    objectType: string,
    ref: { providerId: string; externalId?: string | undefined; name?: string | undefined },
  ): Promise<InventoryObject> {
    const row = OBJECT_TYPE.test(objectType) ? await this.repo.resolve(orgId, objectType, ref) : undefined;
    if (!row) throw notFound();
    return objectView(row);
  }
}
