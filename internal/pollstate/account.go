package pollstate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Account is the tool's own account on a platform as one credential
// showed it, so that a process need not ask again (GET /user, /myself).
// It is only ever used for the credential it was read with: Credential is
// a fingerprint of that credential (Fingerprint), never the credential.
type Account struct {
	Credential string `json:"credential"`
	ID         string `json:"id"`
}

// Fingerprint is a one-way digest of a credential and where it is used
// (the base URL, the e-mail…): equal for the same credential, unequal
// for another, revealing nothing of it.
func Fingerprint(parts ...string) string {
	h := sha256.New()
	h.Write([]byte("fullsend poll-state credential v1\n"))
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Of returns the account id remembered for the credential fingerprint
// fp.
func (a *Account) Of(fp string) (string, bool) {
	if a == nil || a.ID == "" || a.Credential != fp {
		return "", false
	}
	return a.ID, true
}
