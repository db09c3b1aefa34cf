// A retry the SDK scheduled before the connection closed must not throw from its timer (CI saw
// "Channel has been shut down" as an uncaught exception when a readiness check's retry outlived
// closeTemporal): it ends CANCELLED, and the caller's promise rejects.
import { describe, expect, it } from 'vitest';
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import { closedGuard } from '../../src/temporal/closed-guard.ts';

describe('the Temporal connection’s closed guard', () => {
  it('ends a retry whose timer fires after the connection closed CANCELLED, with nothing uncaught', async () => {
    let scheduled!: () => void;
    const retryScheduled = new Promise<void>((resolve) => (scheduled = resolve));
    // A real gRPC server with no service: each call ends UNIMPLEMENTED, which this decider retries (and nothing else).
    const server = new Server();
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    const retry = makeGrpcRetryInterceptor({
      ...defaultGrpcRetryOptions({ initialIntervalMs: () => 50 }),
      retryableDecider: (_attempt, { code }) => {
        if (code !== status.UNIMPLEMENTED) return false;
        scheduled();
        return true;
      },
    });
    const guard = closedGuard();
    const connection = Connection.lazy({ address: `127.0.0.1:${port}`, interceptors: [retry, guard.interceptor] });
    const call = connection.workflowService.getSystemInfo({});
    const outcome = call.then(
      () => 'answered',
      (error: { code?: number }) => error.code,
    );
    await retryScheduled;
    guard.close();
    await connection.close();
    expect(await outcome).toBe(status.CANCELLED);
    server.forceShutdown();
  });
});
