// Connection options towards Temporal, shared by the API's client connection and the worker's native one: the address, and for Temporal Cloud or a TLS cluster
// the client certificate pair (mTLS), an API key, a private CA and a server name. Certificates are given as PEM text or as a path to a PEM file, since
// orchestrators hand them over either way (a secret as a variable, or a mounted file).
import { readFileSync } from 'node:fs';
import type { Config } from './config.ts';

export type TemporalConnectionOptions = {
  address: string;
  tls?: {
    clientCertPair?: { crt: Buffer; key: Buffer };
    serverRootCACertificate?: Buffer;
    serverNameOverride?: string;
  };
  apiKey?: string;
};

function pem(value: string): Buffer {
  return value.trimStart().startsWith('-----BEGIN') ? Buffer.from(value) : readFileSync(value);
}

export function temporalConnectionOptions(temporal: Config['temporal'], address = temporal.address): TemporalConnectionOptions {
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set');
  const { tls, apiKey } = temporal;
  if (!tls) return { address };
  return {
    address,
    tls: {
      ...(tls.cert && tls.key ? { clientCertPair: { crt: pem(tls.cert), key: pem(tls.key) } } : {}),
      ...(tls.ca ? { serverRootCACertificate: pem(tls.ca) } : {}),
      ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
    },
    ...(apiKey ? { apiKey } : {}),
  };
}
