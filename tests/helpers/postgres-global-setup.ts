import type { TestProject } from 'vitest/node';
import { usePostgres } from './services.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server with a superuser for the `integration-postgres` project's test servers. */
    postgresUrl: string;
  }
}

/**
 * The `integration-postgres` project's PostgreSQL: TEST_DATABASE_URL (CI starts one), or a
 * private server for the whole run, stopped when it ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const service = await usePostgres();
  project.provide('postgresUrl', service.url);
  return () => service.stop();
}
