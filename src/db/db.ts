// The process's database. Only repositories (the *.repository.ts files) import `prisma`.
import { config } from '../config.ts';
import { openDatabase } from './database.ts';
import { applyMigrations } from './migrations.ts';

export const db = openDatabase(config.database);
export const prisma = db.prisma;

export function migrate(): Promise<string[]> {
  return db.withSession((runner) => applyMigrations(runner));
}
