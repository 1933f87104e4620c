/**
 * A software WebAuthn authenticator for API tests: an ES256 key per credential (WebCrypto), 'none'
 * attestation, and the JSON shapes @simplewebauthn/browser hands to the server.
 *
 *   const device = new SoftAuthenticator("http://127.0.0.1:1234");
 *   const credential = await device.register(creationOptions);   // body.credential of register/complete
 *   const assertion = await device.authenticate(requestOptions);  // body.credential of authenticate/complete
 */
import { createHash, randomBytes } from "node:crypto";

// ---------------------------------------------------------------------------------------------------
// A tiny CBOR encoder: unsigned and negative integers, byte strings, text strings, arrays and maps.

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, n: number): number[] {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  return [m | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

export function cborEncode(value: Cbor): Uint8Array {
  const out: number[] = [];
  const put = (v: Cbor) => {
    if (typeof v === "number") {
      if (!Number.isInteger(v)) throw new Error("only integers");
      out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)));
    } else if (typeof v === "string") {
      const bytes = new TextEncoder().encode(v);
      out.push(...head(3, bytes.length), ...bytes);
    } else if (v instanceof Uint8Array) {
      out.push(...head(2, v.length), ...v);
    } else if (Array.isArray(v)) {
      out.push(...head(4, v.length));
      v.forEach(put);
    } else {
      const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
      out.push(...head(5, entries.length));
      for (const [k, val] of entries) {
        put(k);
        put(val);
      }
    }
  };
  put(value);
  return new Uint8Array(out);
}

// ---------------------------------------------------------------------------------------------------

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash("sha256").update(data).digest());
const u32 = (n: number) => new Uint8Array([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** WebCrypto's ECDSA signature is r||s; WebAuthn wants ASN.1 DER. */
function derSignature(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = b.slice(i);
    if (v[0]! & 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([0x02, v.length]), v);
  };
  const body = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export type SoftCredential = { id: string; rawId: Uint8Array; keys: CryptoKeyPair; counter: number; rpId: string; userHandle: string };

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  /** Whether the authenticator reports user verification (UV flag). */
  userVerified = true;

  constructor(readonly origin: string) {}

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin = this.origin) {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  private flags(extra = 0) {
    return FLAG_UP | (this.userVerified ? FLAG_UV : 0) | extra;
  }

  /** navigator.credentials.create() for these options; returns the RegistrationResponseJSON. */
  async register(options: any, opts: { origin?: string; reuse?: SoftCredential } = {}) {
    const rpId: string = options.rp.id;
    const credential: SoftCredential = opts.reuse ?? {
      rawId: new Uint8Array(randomBytes(32)),
      id: "",
      keys: (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair,
      counter: 0,
      rpId,
      userHandle: options.user.id,
    };
    credential.id = b64url(credential.rawId);
    const jwk = await crypto.subtle.exportKey("jwk", credential.keys.publicKey);
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2], // kty EC2
      [3, -7], // alg ES256
      [-1, 1], // crv P-256
      [-2, new Uint8Array(Buffer.from(jwk.x!, "base64url"))],
      [-3, new Uint8Array(Buffer.from(jwk.y!, "base64url"))],
    ]);
    const idLen = new Uint8Array([credential.rawId.length >> 8, credential.rawId.length & 0xff]);
    const authData = concat(sha256(rpId), new Uint8Array([this.flags(FLAG_AT)]), u32(credential.counter), new Uint8Array(16), idLen, credential.rawId, cborEncode(coseKey));
    const attestationObject = cborEncode({ fmt: "none", attStmt: {}, authData });
    if (!opts.reuse) this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge, opts.origin)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** navigator.credentials.get() for these options; returns the AuthenticationResponseJSON. */
  async authenticate(options: any, opts: { credential?: SoftCredential; counter?: number; origin?: string } = {}) {
    const allowed = new Set((options.allowCredentials ?? []).map((c: { id: string }) => c.id));
    const credential = opts.credential ?? this.credentials.find((c) => allowed.size === 0 || allowed.has(c.id));
    if (!credential) throw new Error("NotAllowedError: no matching credential");
    credential.counter = opts.counter ?? credential.counter + 1;
    const authData = concat(sha256(options.rpId ?? credential.rpId), new Uint8Array([this.flags()]), u32(credential.counter));
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, opts.origin);
    const signed = concat(authData, sha256(clientDataJSON));
    const raw = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, credential.keys.privateKey, signed));
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(derSignature(raw)),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
