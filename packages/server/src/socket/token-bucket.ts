// The socket's per-connection event budget uses the one bucket of the guards.
export { TokenBucket } from '../guards/token-bucket';
