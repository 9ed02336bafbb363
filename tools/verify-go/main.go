// Command verify-go is an independent check of dalil's transparency log output, written in Go against
// golang.org/x/mod/sumdb/note and golang.org/x/mod/sumdb/tlog (not against dalil's TypeScript), so a
// court or auditor need not trust the archive's own code. See README.md.
//
//	verify-go checkpoint  -vkey KEY -checkpoint FILE [-policy FILE]
//	verify-go proof       -vkey KEY -proof FILE -leaf FILE [-origin ORIGIN] [-policy FILE]
//	verify-go consistency -vkey KEY -old FILE -new FILE -proof FILE
//	verify-go tiles       -vkey KEY -checkpoint FILE -dir DIR
//
// -vkey may be repeated; a value starting with "@" names a file holding the key. -policy names a witness policy
// (C2SP tlog-policy): the checkpoint's witness cosignatures (tlog-cosignature) must then meet its quorum.
// Exit status: 0 verified, 1 verification failed, 2 usage error.
package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const (
	tlogProofHeader   = "c2sp.org/tlog-proof@v1"
	consistencyHeader = "dalil.tlog-consistency@v1"
	tileHeight        = 8
)

type checkpoint struct {
	origin string
	size   int64
	root   tlog.Hash
}

type keyList []string

func (k *keyList) String() string { return strings.Join(*k, ",") }
func (k *keyList) Set(v string) error {
	if strings.HasPrefix(v, "@") {
		b, err := os.ReadFile(v[1:])
		if err != nil {
			return err
		}
		v = string(b)
	}
	*k = append(*k, strings.TrimSpace(v))
	return nil
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: verify-go checkpoint|proof|consistency|tiles -vkey KEY ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "checkpoint":
		err = cmdCheckpoint(os.Args[2:])
	case "proof":
		err = cmdProof(os.Args[2:])
	case "consistency":
		err = cmdConsistency(os.Args[2:])
	case "tiles":
		err = cmdTiles(os.Args[2:])
	default:
		err = usageError{"unknown command " + strconv.Quote(os.Args[1])}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func verifiers(keys keyList) (note.Verifiers, error) {
	if len(keys) == 0 {
		return nil, usageError{"at least one -vkey is required"}
	}
	var list []note.Verifier
	for _, k := range keys {
		v, err := note.NewVerifier(k)
		if err != nil {
			return nil, usageError{fmt.Sprintf("bad verifier key %q: %v", k, err)}
		}
		list = append(list, v)
	}
	return note.VerifierList(list...), nil
}

func readFile(flagName, path string) ([]byte, error) {
	if path == "" {
		return nil, usageError{"-" + flagName + " is required"}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return b, nil
}

// parseDecimal accepts only canonical non-negative decimals (no sign, no leading zeros).
func parseDecimal(s string) (int64, error) {
	if s == "" || (len(s) > 1 && s[0] == '0') || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a canonical decimal", s)
	}
	return strconv.ParseInt(s, 10, 64)
}

func parseHash(s string) (tlog.Hash, error) {
	var h tlog.Hash
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != tlog.HashSize || base64.StdEncoding.EncodeToString(b) != s {
		return h, fmt.Errorf("%q is not a base64 SHA-256 hash", s)
	}
	copy(h[:], b)
	return h, nil
}

// openCheckpoint verifies the signed note with the given keys, then parses the tlog-checkpoint body.
func openCheckpoint(msg []byte, vs note.Verifiers) (checkpoint, error) {
	var c checkpoint
	n, err := note.Open(msg, vs)
	if err != nil {
		return c, fmt.Errorf("checkpoint signature: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n")
	if len(lines) < 3 || lines[0] == "" {
		return c, errors.New("checkpoint text needs origin, size and root hash lines")
	}
	for _, l := range lines[3:] {
		if l == "" {
			return c, errors.New("checkpoint has an empty extension line")
		}
	}
	c.origin = lines[0]
	if c.size, err = parseDecimal(lines[1]); err != nil {
		return c, fmt.Errorf("checkpoint size: %v", err)
	}
	if c.root, err = parseHash(lines[2]); err != nil {
		return c, fmt.Errorf("checkpoint root: %v", err)
	}
	return c, nil
}

func cmdCheckpoint(args []string) error {
	fs := flag.NewFlagSet("checkpoint", flag.ContinueOnError)
	var keys keyList
	fs.Var(&keys, "vkey", "verifier key (repeatable; @file to read from a file)")
	file := fs.String("checkpoint", "", "signed checkpoint file")
	policyFile := fs.String("policy", "", "witness policy (C2SP tlog-policy): the checkpoint's cosignatures must meet its quorum")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	vs, err := verifiers(keys)
	if err != nil {
		return err
	}
	msg, err := readFile("checkpoint", *file)
	if err != nil {
		return err
	}
	c, err := openCheckpoint(msg, vs)
	if err != nil {
		return err
	}
	witnessed, err := quorumReport(*policyFile, msg)
	if err != nil {
		return err
	}
	fmt.Printf("OK checkpoint origin=%s size=%d root=%x\n", c.origin, c.size, c.root[:])
	if witnessed != "" {
		fmt.Println("OK witnesses:", witnessed)
	}
	return nil
}

func cmdProof(args []string) error {
	fs := flag.NewFlagSet("proof", flag.ContinueOnError)
	var keys keyList
	fs.Var(&keys, "vkey", "verifier key (repeatable; @file to read from a file)")
	proofFile := fs.String("proof", "", "tlog-proof file")
	leafFile := fs.String("leaf", "", "file holding the exact leaf bytes")
	origin := fs.String("origin", "", "required checkpoint origin (optional)")
	policyFile := fs.String("policy", "", "witness policy (C2SP tlog-policy): the checkpoint's cosignatures must meet its quorum")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	vs, err := verifiers(keys)
	if err != nil {
		return err
	}
	text, err := readFile("proof", *proofFile)
	if err != nil {
		return err
	}
	leaf, err := readFile("leaf", *leafFile)
	if err != nil {
		return err
	}

	rest := string(text)
	next := func() (string, error) {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			return "", errors.New("tlog-proof ends before its checkpoint")
		}
		line := rest[:i]
		rest = rest[i+1:]
		return line, nil
	}
	line, err := next()
	if err != nil {
		return err
	}
	if line != tlogProofHeader {
		return fmt.Errorf("first line is %q, want %q", line, tlogProofHeader)
	}
	if line, err = next(); err != nil {
		return err
	}
	if strings.HasPrefix(line, "extra ") {
		if line, err = next(); err != nil {
			return err
		}
	}
	if !strings.HasPrefix(line, "index ") {
		return fmt.Errorf("expected an index line, got %q", line)
	}
	index, err := parseDecimal(strings.TrimPrefix(line, "index "))
	if err != nil {
		return fmt.Errorf("index: %v", err)
	}
	var proof tlog.RecordProof
	for {
		if line, err = next(); err != nil {
			return err
		}
		if line == "" {
			break
		}
		h, err := parseHash(line)
		if err != nil {
			return fmt.Errorf("proof line: %v", err)
		}
		proof = append(proof, h)
	}
	c, err := openCheckpoint([]byte(rest), vs)
	if err != nil {
		return err
	}
	if *origin != "" && c.origin != *origin {
		return fmt.Errorf("checkpoint origin %q, want %q", c.origin, *origin)
	}
	if index >= c.size {
		return fmt.Errorf("index %d is outside the tree of size %d", index, c.size)
	}
	lh := tlog.RecordHash(leaf)
	if err := tlog.CheckRecord(proof, c.size, c.root, index, lh); err != nil {
		return fmt.Errorf("inclusion proof: %v", err)
	}
	witnessed, err := quorumReport(*policyFile, []byte(rest))
	if err != nil {
		return err
	}
	fmt.Printf("OK tlog-proof: leaf sha256(0x00||data)=%x at index %d included in %s size %d\n", lh[:], index, c.origin, c.size)
	if witnessed != "" {
		fmt.Println("OK witnesses:", witnessed)
	}
	return nil
}

func cmdConsistency(args []string) error {
	fs := flag.NewFlagSet("consistency", flag.ContinueOnError)
	var keys keyList
	fs.Var(&keys, "vkey", "verifier key (repeatable; @file to read from a file)")
	oldFile := fs.String("old", "", "older signed checkpoint")
	newFile := fs.String("new", "", "newer signed checkpoint")
	proofFile := fs.String("proof", "", "consistency proof file ("+consistencyHeader+")")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	vs, err := verifiers(keys)
	if err != nil {
		return err
	}
	oldMsg, err := readFile("old", *oldFile)
	if err != nil {
		return err
	}
	newMsg, err := readFile("new", *newFile)
	if err != nil {
		return err
	}
	text, err := readFile("proof", *proofFile)
	if err != nil {
		return err
	}
	oldC, err := openCheckpoint(oldMsg, vs)
	if err != nil {
		return fmt.Errorf("old %v", err)
	}
	newC, err := openCheckpoint(newMsg, vs)
	if err != nil {
		return fmt.Errorf("new %v", err)
	}
	if oldC.origin != newC.origin {
		return fmt.Errorf("checkpoints are from different logs: %q and %q", oldC.origin, newC.origin)
	}
	if !bytes.HasSuffix(text, []byte("\n")) {
		return errors.New("consistency proof must end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if len(lines) < 3 || lines[0] != consistencyHeader || !strings.HasPrefix(lines[1], "old ") || !strings.HasPrefix(lines[2], "new ") {
		return fmt.Errorf("consistency proof must start with %q, \"old N\", \"new M\"", consistencyHeader)
	}
	oldSize, err1 := parseDecimal(strings.TrimPrefix(lines[1], "old "))
	newSize, err2 := parseDecimal(strings.TrimPrefix(lines[2], "new "))
	if err1 != nil || err2 != nil {
		return errors.New("consistency proof sizes are not decimals")
	}
	if oldSize != oldC.size || newSize != newC.size {
		return fmt.Errorf("proof is for sizes %d→%d but the checkpoints have %d→%d", oldSize, newSize, oldC.size, newC.size)
	}
	if oldSize < 1 || oldSize > newSize {
		return fmt.Errorf("no consistency proof exists from size %d to size %d", oldSize, newSize)
	}
	var proof tlog.TreeProof
	for _, l := range lines[3:] {
		h, err := parseHash(l)
		if err != nil {
			return fmt.Errorf("proof line: %v", err)
		}
		proof = append(proof, h)
	}
	if err := tlog.CheckTree(proof, newSize, newC.root, oldSize, oldC.root); err != nil {
		return fmt.Errorf("consistency proof: %v", err)
	}
	fmt.Printf("OK consistency: %s size %d is a prefix of size %d\n", oldC.origin, oldSize, newSize)
	return nil
}

// tileDir reads C2SP tlog-tiles files (tile/<L>/<N>[.p/<W>], tile/entries/...) published for a tree of size n.
// Go's tlog names the same tiles tile/8/<L>/<N> and tile/8/data/<N>.
type tileDir struct {
	dir string
	n   int64
}

func c2spPath(t tlog.Tile) string {
	p := t.Path()
	p = strings.Replace(p, fmt.Sprintf("tile/%d/data/", tileHeight), "tile/entries/", 1)
	return strings.Replace(p, fmt.Sprintf("tile/%d/", tileHeight), "tile/", 1)
}

// tile returns tile number `index` at tile level `level` as it must be published for size n: full when the tree
// covers it, otherwise the partial tile of the width the tree has. level -1 is the entry bundle.
func (d tileDir) tile(level int, index int64) (tlog.Tile, []byte, error) {
	l := level
	if l < 0 {
		l = 0
	}
	count := d.n >> uint(tileHeight*l)
	w := count - index<<tileHeight
	if w <= 0 {
		return tlog.Tile{}, nil, fmt.Errorf("tile %d/%d is beyond the tree of size %d", level, index, d.n)
	}
	if w > 1<<tileHeight {
		w = 1 << tileHeight
	}
	t := tlog.Tile{H: tileHeight, L: level, N: index, W: int(w)}
	data, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(c2spPath(t))))
	if err != nil {
		return t, nil, err
	}
	if level >= 0 && len(data) != t.W*tlog.HashSize {
		return t, nil, fmt.Errorf("%s has %d bytes, want %d", c2spPath(t), len(data), t.W*tlog.HashSize)
	}
	return t, data, nil
}

// ReadTiles lets tlog.TileHashReader read the directory.
func (d tileDir) Height() int { return tileHeight }
func (d tileDir) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(c2spPath(t))))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}
func (d tileDir) SaveTiles([]tlog.Tile, [][]byte) {}

// ReadHashes reads stored hashes straight from the tiles, unauthenticated; cmdTiles authenticates every tile.
func (d tileDir) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		want := tlog.TileForIndex(tileHeight, x)
		t, data, err := d.tile(want.L, want.N)
		if err != nil {
			return nil, err
		}
		if out[i], err = tlog.HashFromTile(t, data, x); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// subtreeRoot is the Merkle root of a full tile's 2^8 hashes: the hash one tile level up.
func subtreeRoot(data []byte) tlog.Hash {
	level := make([]tlog.Hash, len(data)/tlog.HashSize)
	for i := range level {
		copy(level[i][:], data[i*tlog.HashSize:])
	}
	for len(level) > 1 {
		next := make([]tlog.Hash, len(level)/2)
		for i := range next {
			next[i] = tlog.NodeHash(level[2*i], level[2*i+1])
		}
		level = next
	}
	return level[0]
}

func cmdTiles(args []string) error {
	fs := flag.NewFlagSet("tiles", flag.ContinueOnError)
	var keys keyList
	fs.Var(&keys, "vkey", "verifier key (repeatable; @file to read from a file)")
	file := fs.String("checkpoint", "", "signed checkpoint file")
	dir := fs.String("dir", "", "directory holding tile/ as published")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *dir == "" {
		return usageError{"-dir is required"}
	}
	vs, err := verifiers(keys)
	if err != nil {
		return err
	}
	msg, err := readFile("checkpoint", *file)
	if err != nil {
		return err
	}
	c, err := openCheckpoint(msg, vs)
	if err != nil {
		return err
	}
	if c.size == 0 {
		fmt.Printf("OK tiles: empty tree of %s\n", c.origin)
		return nil
	}
	d := tileDir{*dir, c.size}

	// 1. The library's own client path: a tile-backed hash reader checked against the signed root.
	th, err := tlog.TreeHash(c.size, tlog.TileHashReader(tlog.Tree{N: c.size, Hash: c.root}, d))
	if err != nil || th != c.root {
		return fmt.Errorf("tiles do not hash to the checkpoint's root (%v)", err)
	}

	// 2. Every tile authenticated, not only those a client happens to fetch. The root covers every partial
	// tile's hashes; each full tile must hash to its entry in the tile one level up.
	if th, err = tlog.TreeHash(c.size, d); err != nil || th != c.root {
		return fmt.Errorf("tiles do not hash to the checkpoint's root (%v)", err)
	}
	for level := 0; c.size>>uint(tileHeight*(level+1)) > 0; level++ {
		full := c.size >> uint(tileHeight*(level+1))
		for j := int64(0); j < full; j++ {
			t, data, err := d.tile(level, j)
			if err != nil {
				return err
			}
			parent, err := d.ReadHashes([]int64{tlog.StoredHashIndex(tileHeight*(level+1), j)})
			if err != nil {
				return err
			}
			if subtreeRoot(data) != parent[0] {
				above := tlog.TileForIndex(tileHeight, tlog.StoredHashIndex(tileHeight*(level+1), j))
				return fmt.Errorf("%s and its hash in the tile above (tile/%d/...) disagree: one of them was altered", c2spPath(t), above.L)
			}
		}
	}

	// 3. Every entry bundle holds exactly the leaves whose hashes the level-0 tiles hold. A public mirror has
	// hash tiles only (the events say what the archive holds); without tile/entries/ the hashes are all there is.
	if _, err := os.Stat(filepath.Join(d.dir, "tile", "entries")); errors.Is(err, os.ErrNotExist) {
		fmt.Printf("OK tiles: hash tiles of %s size %d match root %x (no entry bundles published)\n", c.origin, c.size, c.root[:])
		return nil
	}
	for j := int64(0); j<<tileHeight < c.size; j++ {
		bt, bundle, err := d.tile(-1, j)
		if err != nil {
			return fmt.Errorf("entry bundle: %v", err)
		}
		_, hashes, err := d.tile(0, j)
		if err != nil {
			return err
		}
		for i := 0; i < bt.W; i++ {
			index := j<<tileHeight + int64(i)
			if len(bundle) < 2 || len(bundle) < 2+(int(bundle[0])<<8|int(bundle[1])) {
				return fmt.Errorf("%s: entry %d is truncated", c2spPath(bt), index)
			}
			n := int(bundle[0])<<8 | int(bundle[1])
			if rh := tlog.RecordHash(bundle[2 : 2+n]); !bytes.Equal(rh[:], hashes[i*tlog.HashSize:(i+1)*tlog.HashSize]) {
				return fmt.Errorf("%s: entry %d does not match its leaf hash", c2spPath(bt), index)
			}
			bundle = bundle[2+n:]
		}
		if len(bundle) != 0 {
			return fmt.Errorf("%s: %d bytes after the last entry", c2spPath(bt), len(bundle))
		}
	}
	fmt.Printf("OK tiles: %d entries of %s size %d match root %x\n", c.size, c.origin, c.size, c.root[:])
	return nil
}
