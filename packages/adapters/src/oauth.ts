export { clientCredentialsTokenSource, type ClientCredentialsOptions } from './tokens/client-credentials-token-source.js';
