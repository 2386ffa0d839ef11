"""The gateway's bearer token verifier against PyJWT (PyPI, with `cryptography`) as oracle.

Makes an RSA 2048, a P-256, a P-384 and an Ed25519 key, publishes them as a key set (PyJWT's
`to_jwk`), mints seeded tokens with PyJWT for every algorithm (valid; expired, not yet valid,
issued in the future, each at the exact second the 60 s skew decides; wrong issuer; wrong or
no audience; an audience list; another key's signature; claims or signature changed; a kid
the set lacks), then mutates tokens byte by byte, and asks the gateway's probe and PyJWT
about each. PyJWT's verdict: the key chosen by kid (none: refused), then `jwt.decode` with
that key, the policy's algorithms, issuer, audience, 60 s leeway, and exp, iss and sub
required.

  - Every token PyJWT refuses, the gateway refuses (it never accepts more).
  - Every token PyJWT accepts, the gateway accepts with the same subject and expiry, except
    where it is stricter by design, each counted and printed: a signature whose base64url is
    not canonical (non-zero bits after the last byte: PyJWT's decoder drops them, so one
    token has several spellings).

usage: jwt_compare.py PROBE [--mutations N] [--seed S]; exits 1 on any other difference.
"""

import argparse
import base64
import json
import random
import subprocess
import sys

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

ISSUER = "https://id.example.com/"
AUDIENCE = "open-market-api"
NOW = 1_795_651_200
SKEW = 60
ALGORITHMS = ["RS256", "RS384", "PS256", "ES256", "ES384", "EdDSA"]


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def canonical(segment):
    """Whether a base64url segment is the one spelling of its bytes."""
    try:
        return b64(unb64(segment)) == segment
    except Exception:
        return False


def make_keys():
    keys = {
        "rsa-1": (rsa.generate_private_key(public_exponent=65537, key_size=2048), RSAAlgorithm),
        "ec-1": (ec.generate_private_key(ec.SECP256R1()), ECAlgorithm),
        "ec384-1": (ec.generate_private_key(ec.SECP384R1()), ECAlgorithm),
        "ed-1": (ed25519.Ed25519PrivateKey.generate(), OKPAlgorithm),
    }
    members = []
    for kid, (private, algorithm) in keys.items():
        jwk = json.loads(algorithm.to_jwk(private.public_key()))
        jwk["kid"] = kid
        members.append(jwk)
    return {kid: private for kid, (private, _) in keys.items()}, json.dumps({"keys": members})


KID_FOR = {"RS256": "rsa-1", "RS384": "rsa-1", "PS256": "rsa-1", "ES256": "ec-1", "ES384": "ec384-1", "EdDSA": "ed-1"}


def claims(**changes):
    base = {"iss": ISSUER, "sub": "seller-7", "aud": AUDIENCE, "exp": NOW + 300, "iat": NOW - 10, "scope": "products:write"}
    for name, value in changes.items():
        if value is None:
            base.pop(name, None)
        else:
            base[name] = value
    return base


def cases(private, rng, mutations):
    out = []
    for alg in ALGORITHMS:
        kid = KID_FOR[alg]
        key = private[kid]

        def mint(payload, kid=kid, key=key, alg=alg):
            return jwt.encode(payload, key, algorithm=alg, headers={"kid": kid})

        valid = mint(claims())
        out += [(f"{alg} valid", valid, NOW), (f"{alg} valid, last second", valid, NOW + 300 + SKEW - 1),
                (f"{alg} expired", valid, NOW + 300 + SKEW)]
        early = mint(claims(nbf=NOW + 100))
        out += [(f"{alg} nbf, first second", early, NOW + 100 - SKEW), (f"{alg} not yet valid", early, NOW + 100 - SKEW - 1)]
        out.append((f"{alg} iat in the future", mint(claims(iat=NOW + SKEW + 1)), NOW))
        out.append((f"{alg} wrong issuer", mint(claims(iss="https://id.example.com")), NOW))
        out.append((f"{alg} wrong audience", mint(claims(aud="account")), NOW))
        out.append((f"{alg} no audience", mint(claims(aud=None)), NOW))
        out.append((f"{alg} audience list", mint(claims(aud=["account", AUDIENCE])), NOW))
        out.append((f"{alg} no sub", mint(claims(sub=None)), NOW))
        out.append((f"{alg} no exp", mint(claims(exp=None)), NOW))
        out.append((f"{alg} unknown kid", mint(claims(), kid="rotated-2"), NOW))
        other = "ec-1" if kid != "ec-1" else "ed-1"
        out.append((f"{alg} naming another kid", mint(claims(), kid=other), NOW))
        head, body, sig = valid.split(".")
        out.append((f"{alg} claims changed", ".".join([head, b64(json.dumps(claims(sub="seller-8")).encode()), sig]), NOW))
        raw = bytearray(unb64(sig))
        raw[len(raw) // 2] ^= 1
        out.append((f"{alg} signature changed", ".".join([head, body, b64(bytes(raw))]), NOW))
        for index in range(mutations):
            position = rng.randrange(len(valid))
            character = rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=")
            mutated = valid[:position] + character + valid[position + 1:]
            if mutated != valid:
                out.append((f"{alg} mutation {index} at {position}", mutated, NOW))
    return out


def oracle(token, keyset, now):
    try:
        header = jwt.get_unverified_header(token)
        kid = header.get("kid")
        key = next((k for k in keyset.keys if k.key_id == kid), None)
        if key is None:
            return {"error": "unknown_key"}
        decoded = jwt.decode(token, key.key, algorithms=ALGORITHMS, audience=AUDIENCE, issuer=ISSUER, leeway=SKEW,
                             options={"require": ["exp", "iss", "sub"]})
        return {"sub": decoded["sub"], "exp": int(decoded["exp"])}
    except Exception as error:  # every PyJWT refusal, and keys it cannot use
        return {"error": type(error).__name__}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe")
    parser.add_argument("--mutations", type=int, default=40)
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    private, jwks = make_keys()
    keyset = jwt.PyJWKSet.from_json(jwks)
    all_cases = cases(private, rng, args.mutations)

    requests = [json.dumps({"jwks": jwks, "issuer": ISSUER, "audiences": [AUDIENCE], "algorithms": ALGORITHMS, "skew": SKEW})]
    requests += [json.dumps({"token": token, "now": now}) for _, token, now in all_cases]
    run = subprocess.run([args.probe], input="\n".join(requests) + "\n", capture_output=True, text=True, check=True)
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    setup, answers = answers[0], answers[1:]
    if setup.get("keys") != 4:
        print(f"jwt: the probe read the key set as {setup}", file=sys.stderr)
        return 1

    # PyJWT's clock is the real one: freeze it at each case's "now".
    import jwt.api_jwt as api_jwt
    real_datetime = api_jwt.datetime
    differences, stricter, agreed = [], 0, 0
    for (name, token, now), gateway in zip(all_cases, answers):
        class Frozen(real_datetime):
            @classmethod
            def now(cls, tz=None):
                return real_datetime.fromtimestamp(now, tz)
        api_jwt.datetime = Frozen
        try:
            expected = oracle(token, keyset, now)
        finally:
            api_jwt.datetime = real_datetime
        if "error" in expected:
            if "error" in gateway:
                agreed += 1
            else:
                differences.append(f"{name}: the gateway accepted what PyJWT refused ({expected['error']})")
        elif "error" in gateway:
            if gateway["error"] == "malformed" and not all(canonical(part) for part in token.split(".")):
                stricter += 1
            else:
                differences.append(f"{name}: the gateway refused ({gateway['error']}) what PyJWT accepted")
        elif gateway != expected:
            differences.append(f"{name}: the gateway read {gateway}, PyJWT {expected}")
        else:
            agreed += 1
    for line in differences[:40]:
        print("jwt: " + line, file=sys.stderr)
    accepted = sum(1 for answer in answers if "error" not in answer)
    print(f"jwt: {len(all_cases)} tokens against PyJWT {jwt.__version__}: {agreed} verdicts agree ({accepted} accepted), "
          f"{stricter} refused only by the gateway (non-canonical base64url), {len(differences)} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
