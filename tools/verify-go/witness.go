package main

// Witness cosignatures (C2SP tlog-cosignature v1.0.1, Ed25519, type 0x04) checked against a C2SP tlog-policy
// file, written from the specifications with Go's crypto/ed25519 (golang.org/x/mod/sumdb/note has no
// cosignature type): the signed message is "cosignature/v1\ntime <T>\n" followed by the checkpoint body.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
)

type policyWitness struct {
	name    string // the policy's name for it
	keyName string // the key name in its signature lines
	keyID   uint32
	pub     ed25519.PublicKey
}

type policyGroup struct {
	k       int
	members []string
}

type policy struct {
	witnesses []policyWitness
	groups    map[string]policyGroup
	quorum    string
}

func parseCosignerVkey(vkey string) (policyWitness, error) {
	var w policyWitness
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 || len(parts[1]) != 8 {
		return w, fmt.Errorf("malformed witness vkey %q", vkey)
	}
	id, err := hex.DecodeString(parts[1])
	if err != nil {
		return w, fmt.Errorf("malformed key id in %q", vkey)
	}
	key, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(key) != 33 || key[0] != 0x04 {
		return w, fmt.Errorf("witness vkey %q is not an Ed25519 cosignature key (type 0x04)", vkey)
	}
	h := sha256.New()
	h.Write([]byte(parts[0] + "\n"))
	h.Write([]byte{0x04})
	h.Write(key[1:])
	if !bytes.Equal(h.Sum(nil)[:4], id) {
		return w, fmt.Errorf("witness vkey %q: key id does not match the key", vkey)
	}
	w.keyName = parts[0]
	w.keyID = binary.BigEndian.Uint32(id)
	w.pub = ed25519.PublicKey(key[1:])
	return w, nil
}

func readPolicy(path string) (*policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	p := &policy{groups: map[string]policyGroup{}}
	defined := map[string]bool{"none": true}
	for i, raw := range strings.Split(string(b), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
		bad := func(why string) error { return fmt.Errorf("policy line %d: %s", i+1, why) }
		switch f[0] {
		case "log":
		case "witness":
			if len(f) < 3 || len(f) > 4 || defined[f[1]] {
				return nil, bad("bad or duplicate witness line")
			}
			w, err := parseCosignerVkey(f[2])
			if err != nil {
				return nil, bad(err.Error())
			}
			w.name = f[1]
			defined[f[1]] = true
			p.witnesses = append(p.witnesses, w)
		case "group":
			if len(f) < 4 || defined[f[1]] {
				return nil, bad("bad or duplicate group line")
			}
			members := f[3:]
			seen := map[string]bool{}
			for _, m := range members {
				if m == "none" || !defined[m] || seen[m] {
					return nil, bad("member " + strconv.Quote(m) + " is undefined, none, or listed twice")
				}
				seen[m] = true
			}
			k := 0
			switch f[2] {
			case "all":
				k = len(members)
			case "any":
				k = 1
			default:
				if k, err = strconv.Atoi(f[2]); err != nil || k < 1 || k > len(members) {
					return nil, bad("bad threshold " + strconv.Quote(f[2]))
				}
			}
			defined[f[1]] = true
			p.groups[f[1]] = policyGroup{k, members}
		case "quorum":
			if len(f) != 2 || p.quorum != "" || !defined[f[1]] {
				return nil, bad("bad or second quorum line")
			}
			p.quorum = f[1]
		default:
			return nil, bad("unknown keyword " + strconv.Quote(f[0]))
		}
	}
	if p.quorum == "" {
		return nil, fmt.Errorf("policy %s has no quorum line", path)
	}
	return p, nil
}

func (p *policy) met(name string, cosigned map[string]bool) bool {
	if name == "none" {
		return true
	}
	g, ok := p.groups[name]
	if !ok {
		return cosigned[name]
	}
	n := 0
	for _, m := range g.members {
		if p.met(m, cosigned) {
			n++
		}
	}
	return n >= g.k
}

// checkQuorum verifies every cosignature line by a policy witness on the signed note msg (a line that matches a
// witness's name and key ID but does not verify is an error, as signed-note asks) and evaluates the quorum.
func checkQuorum(msg []byte, p *policy) ([]string, error) {
	s := string(msg)
	split := strings.LastIndex(s, "\n\n")
	if split < 0 {
		return nil, fmt.Errorf("checkpoint is not a signed note")
	}
	text := s[:split+1]
	cosigned := map[string]bool{}
	var names []string
	for _, line := range strings.Split(strings.TrimSuffix(s[split+2:], "\n"), "\n") {
		rest := strings.TrimPrefix(line, "\u2014 ")
		if rest == line {
			return nil, fmt.Errorf("malformed signature line %q", line)
		}
		keyName, b64 := rest, ""
		if sp := strings.IndexByte(rest, ' '); sp >= 0 {
			keyName, b64 = rest[:sp], rest[sp+1:]
		}
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(raw) < 4 {
			return nil, fmt.Errorf("malformed signature line %q", line)
		}
		id := binary.BigEndian.Uint32(raw[:4])
		for _, w := range p.witnesses {
			if w.keyName != keyName || w.keyID != id {
				continue
			}
			if len(raw) != 76 {
				return nil, fmt.Errorf("cosignature by %s is %d bytes, not 76", keyName, len(raw))
			}
			t := binary.BigEndian.Uint64(raw[4:12])
			message := fmt.Sprintf("cosignature/v1\ntime %d\n%s", t, text)
			if !ed25519.Verify(w.pub, []byte(message), raw[12:]) {
				return nil, fmt.Errorf("cosignature by witness %s (%s) does not verify", w.name, keyName)
			}
			if !cosigned[w.name] {
				cosigned[w.name] = true
				names = append(names, w.name)
			}
		}
	}
	if !p.met(p.quorum, cosigned) {
		return names, fmt.Errorf("quorum not met: %s needs more cosignatures; cosigned by [%s]", p.quorum, strings.Join(names, ", "))
	}
	return names, nil
}

// quorumReport runs checkQuorum for a -policy flag (no policy: nothing to report).
func quorumReport(policyFile string, msg []byte) (string, error) {
	if policyFile == "" {
		return "", nil
	}
	p, err := readPolicy(policyFile)
	if err != nil {
		return "", err
	}
	names, err := checkQuorum(msg, p)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("cosigned by %s; quorum met (%s)", strings.Join(names, ", "), p.quorum), nil
}
