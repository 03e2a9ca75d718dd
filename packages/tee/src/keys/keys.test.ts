import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { toChecksumAddress } from './checksum-address';
import { toEcdsaAccount } from './to-ecdsa-account';
import { toEd25519Keypair } from './to-ed25519-keypair';

const material = 'ab'.repeat(32);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('toChecksumAddress', () => {
  it.each([
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ])('matches the EIP-55 test vector %s', (address) => {
    expect(toChecksumAddress(address.toLowerCase())).toBe(address);
  });
});

describe('toEcdsaAccount', () => {
  it('derives the private key as keccak256 of the full material and the address from its public key', () => {
    const account = toEcdsaAccount({ key: material });
    expect(account.privateKey).toBe(`0x${hex(keccak_256(Buffer.from(material, 'hex')))}`);
    const publicKey = secp256k1.getPublicKey(keccak_256(Buffer.from(material, 'hex')), false);
    expect(account.publicKey).toBe(`0x${hex(publicKey)}`);
    expect(account.address.toLowerCase()).toBe(
      `0x${hex(keccak_256(publicKey.subarray(1)).subarray(12))}`,
    );
    expect(account.address).toBe(toChecksumAddress(account.address));
  });

  it('is stable for the same material, whatever its encoding', () => {
    const fromHex = toEcdsaAccount({ key: material });
    expect(toEcdsaAccount({ key: `0x${material}` })).toEqual(fromHex);
    expect(toEcdsaAccount({ key: Buffer.from(material, 'hex') })).toEqual(fromHex);
  });

  it('uses every byte: material differing only in its last byte gives another key', () => {
    const longer = 'cd'.repeat(64);
    const changed = `${longer.slice(0, -2)}ce`;
    expect(toEcdsaAccount({ key: changed }).address).not.toBe(
      toEcdsaAccount({ key: longer }).address,
    );
  });

  it('refuses empty or short material', () => {
    expect(() => toEcdsaAccount({ key: '' })).toThrow(/shorter than 16 bytes/);
    expect(() => toEcdsaAccount({ key: 'zz' })).toThrow(/not valid hex/);
  });
});

describe('toEd25519Keypair', () => {
  it('seeds with sha256 of the full material and gives a working keypair', () => {
    const { secretKey, publicKey } = toEd25519Keypair({ key: material });
    expect(hex(secretKey)).toBe(hex(sha256(Buffer.from(material, 'hex'))));
    const message = new TextEncoder().encode('hello');
    expect(ed25519.verify(ed25519.sign(message, secretKey), message, publicKey)).toBe(true);
  });

  it('gives distinct keys for distinct material and the same key for the same', () => {
    const a = toEd25519Keypair({ key: material });
    expect(hex(toEd25519Keypair({ key: material }).publicKey)).toBe(hex(a.publicKey));
    expect(hex(toEd25519Keypair({ key: 'ac'.repeat(32) }).publicKey)).not.toBe(hex(a.publicKey));
  });
});
