// The SDK's retry interceptor makes each retry from a timer (grpc-retry.ts). A retry whose timer
// fires after the connection was closed (a readiness check at shutdown, a signal while a test file
// ends) asked the closed channel for a call, which throws from the timer: an uncaught exception.
// This interceptor sits after the retry interceptor: once its connection is closed it answers
// each new call CANCELLED itself (not retried), and the caller's promise rejects as usual.
import { InterceptingCall, Metadata, status as grpcStatus, type Interceptor, type InterceptingListener } from '@grpc/grpc-js';

export interface ClosedGuard {
  interceptor: Interceptor;
  /** From now on, calls end CANCELLED without reaching the channel. Call it before closing the connection. */
  close(): void;
}

/** A call that never reaches the channel: started, it ends CANCELLED on the next tick. */
function cancelledCall(): InterceptingCall {
  return new InterceptingCall({
    start(_metadata: Metadata, listener?: Partial<InterceptingListener>) {
      queueMicrotask(() => listener?.onReceiveStatus?.({ code: grpcStatus.CANCELLED, details: 'The Temporal connection is closed', metadata: new Metadata() }));
    },
    cancelWithStatus() {},
    getPeer: () => '',
    sendMessageWithContext() {},
    sendMessage() {},
    startRead() {},
    halfClose() {},
    getAuthContext: () => null,
  });
}

export function closedGuard(): ClosedGuard {
  let closed = false;
  return {
    interceptor: (options, nextCall) => (closed ? cancelledCall() : new InterceptingCall(nextCall(options))),
    close() {
      closed = true;
    },
  };
}
