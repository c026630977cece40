/**
 * Which database the suite runs on: embedded PGlite unless SVC_TEST_POSTGRES_URL names a PostgreSQL
 * server (a database there the suite may create other databases from, e.g. postgres://postgres@127.0.0.1:5432/test).
 */
export const POSTGRES_ADMIN_URL = process.env.SVC_TEST_POSTGRES_URL || undefined;
export const BACKEND: 'postgres' | 'pglite' = POSTGRES_ADMIN_URL ? 'postgres' : 'pglite';

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Names of a run's per-file database copies start with this (`svc_t_<template's suffix>_`), so a run drops only its own. */
export function copyPrefix(template: string): string {
  return `svc_t_${template.replace(/^svc_tpl_/, '')}_`;
}
