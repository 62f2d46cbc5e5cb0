import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { usePostgres, type Service } from './services.ts';
import { postgresUrlIn } from './store-backends.ts';

/** A PostgreSQL server for one test file and a fresh schema of it per test: `DATABASE_URL`s that share nothing. */
export function postgresSchemas() {
  let service: Service | null = null;
  let admin: pg.Client | null = null;
  const schemas: string[] = [];
  return {
    async setUp(): Promise<void> {
      service = await usePostgres();
      admin = new pg.Client({ connectionString: service.url });
      await admin.connect();
    },
    /** The URL of the schema `fresh` made last. */
    get lastUrl(): string {
      return postgresUrlIn(service!.url, schemas.at(-1)!);
    },
    /** The URL of a new empty schema. */
    async fresh(): Promise<string> {
      const schema = `t_${randomUUID().replaceAll('-', '')}`;
      await admin!.query(`CREATE SCHEMA ${schema}`);
      schemas.push(schema);
      return postgresUrlIn(service!.url, schema);
    },
    async tearDown(): Promise<void> {
      for (const schema of schemas.splice(0)) await admin?.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin?.end();
      await service?.stop();
    },
  };
}
