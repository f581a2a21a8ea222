// Builds a heap of millions of small objects (a map of sessions with payloads, a linked
// list, slices of pointers) and writes it with runtime/debug.WriteHeapDump, for
// bench/gen-large-go.sh. Usage: prog OUT MILLIONS
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

type Session struct {
	ID      int64
	User    string
	Payload []byte
	Next    *Session
}

type Node struct {
	Next *Node
	Val  [3]int64
}

var sessions map[int64]*Session
var list *Node
var all []*Session

func main() {
	out := os.Args[1]
	millions, _ := strconv.ParseFloat(os.Args[2], 64)
	n := int(millions * 1e6 / 4) // ~4 objects per unit
	sessions = make(map[int64]*Session, n)
	var prev *Session
	for i := 0; i < n; i++ {
		s := &Session{ID: int64(i), User: "user-" + strconv.Itoa(i%997), Payload: make([]byte, 16+i%48), Next: prev}
		if i%5 == 0 {
			prev = nil
		} else {
			prev = s
		}
		sessions[int64(i)] = s
		if i%4 == 0 {
			all = append(all, s)
		}
		list = &Node{Next: list}
	}
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	f, err := os.Create(out)
	if err != nil {
		panic(err)
	}
	debug.WriteHeapDump(f.Fd())
	f.Close()
	fmt.Printf("{\"heap_objects\": %d, \"heap_alloc\": %d}\n", m.HeapObjects, m.HeapAlloc)
}
