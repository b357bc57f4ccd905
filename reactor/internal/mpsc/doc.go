// Package mpsc is the task queue of an event loop: many goroutines offer
// tasks, the loop's own goroutine alone polls and runs them.
//
// # Why a multi-producer single-consumer queue
//
// A Netty event loop owns its channels and runs everything that touches them
// on its one thread, so handlers need no locks. Work submitted from any other
// thread (execute, a boss handing an accepted channel to a worker, a write
// from a business thread) is therefore queued and run later, serially, by the
// loop. Many threads write to that queue and exactly one reads it. Netty
// exploits the asymmetry with JCTools' MPSC queues: MpscUnboundedArrayQueue
// with 1024-slot chunks by default, MpscChunkedArrayQueue when bounded (see
// NioEventLoop.newTaskQueue0). Producers never take a lock, and the consumer,
// being alone, reads without competing with anyone.
//
// # Design
//
// Elements live in chunks of 1024 slots linked into a list. Every element
// has an absolute index; index i lives in slot i%1024 of chunk i/1024.
//
//   - Claim. A producer reserves an index with one atomic add on the producer
//     index (a compare-and-swap against the consumer index when bounded, so a
//     full queue is never overfilled).
//   - Publish. It writes the value into its slot, then sets the slot's ready
//     flag with an atomic store. The consumer reads the value only after it
//     has loaded that flag, so it never sees a half-written element; the
//     atomic pair is also what orders the two accesses for the race detector.
//   - Link. The producer that first needs a chunk beyond the last one links
//     it. Linking is serialised by parking the tail chunk's index at a marker
//     value (JCTools calls it ROTATION); other producers that need the new
//     chunk yield until it is there. This is the only place a producer waits:
//     once per 1024 offers, normally for a few instructions, longer only if
//     the linking goroutine is descheduled mid-link. JCTools' queues have the
//     same window, so, strictly, neither is lock-free at chunk boundaries.
//   - Find. A producer that was slow may find the tail already past its
//     chunk; it walks back along prev links. This is the shape of JCTools'
//     MpscUnboundedXaddArrayQueue. Netty's default, MpscUnboundedArrayQueue,
//     claims with a CAS and links under a marker in the producer index
//     instead; both keep each producer's elements in order and let the consumer
//     read without a lock.
//   - Consume. The consumer reads slot by slot, writes the zero value back so
//     the garbage collector can free whatever a task captured, and moves to
//     the next chunk at the end of one. If an index has been claimed but not
//     yet published, Poll waits for it, as JCTools' poll does: IsEmpty and
//     Poll then agree, which the loop's "has tasks?" check relies on.
//
// # Chunk reuse
//
// A chunk the consumer has left is kept as a spare and handed to the next
// producer that links a chunk, so a queue whose length stays steady does not
// allocate. Reuse is safe because of three facts:
//
//  1. A chunk index is assigned to exactly one chunk, once, by the single
//     producer holding the link marker, and indices only grow.
//  2. A chunk is recycled only after the consumer has read all of its 1024
//     slots, so never while a producer that claimed one of them has yet to
//     publish it.
//  3. A producer that claimed index i only uses a chunk after loading its
//     index (atomically) and finding i/1024, or after walking prev links
//     from a tail whose index was at least i/1024; by (2) none of those
//     chunks can be recycled before it publishes.
//
// A producer may hold a stale pointer to a chunk that has since been
// recycled, but it cannot act on it: its index check fails and it looks
// again. Every hand-over (consumer to spare, spare to linking producer, link
// to other producers) goes through sync/atomic, so the race detector sees
// each happens-before edge; nothing relies on unsafe.
package mpsc
