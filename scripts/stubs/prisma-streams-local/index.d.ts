export declare function startLocalDurableStreamsServer(): Promise<never>;
