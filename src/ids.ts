import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

/** Opaque, time-sortable ids with a readable prefix (`wh_`, `evt_`, `dlv_`, `att_`, `brd_` …). */
export const newId = (prefix: string) => `${prefix}_${next()}`;
