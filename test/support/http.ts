// HTTP helpers of the test kit.
export { freePort } from '../../scripts/free-port.ts';
