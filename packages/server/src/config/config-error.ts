/** ConfigError lives with the other errors, so that any folder may throw it without importing `config/`. */
export { ConfigError } from '../errors/config-error';
