// Package distributed runs a sweep's work units on workers on any number
// of machines, over NATS JetStream: a [Remote] is the coordinator's side
// (an [experiment.Remote]), a [Worker] the side that executes units.
//
// The coordinator publishes the run's job (the run folder's inputs, by
// their hashes) to a key-value bucket and the input files to an object
// store, then one message per unit, holding the unit's key alone, to a
// work-queue stream. Workers pull units one at a time from a shared
// consumer with explicit acks, a bounded AckWait kept open by InProgress
// heartbeats while a unit runs, and MaxDeliver: a unit whose worker is
// killed is redelivered to another after AckWait. Workers rebuild the
// run's plan from the job's files ([experiment.Stack.OpenJob]) and publish
// each unit's answer to a results stream; the coordinator hands answers
// to the run's single writer, which stores each item once. A unit that
// reaches MaxDeliver without an answer is an infrastructure failure
// (the server's max-deliveries advisory tells the coordinator), reported
// apart from every verdict.
//
// Model-backed cores run on the workers, each bound to the worker's own
// endpoint and key ([Worker.Models]) behind a cache over its job folder
// and the server's key-value bucket [CacheBucket] ([CacheStore]), which
// every worker shares: a request one worker paid for is answered from the
// bucket on every other. A unit's answer names the cache keys its items
// used; the coordinator ([Remote.ModelStore]) copies those entries into
// the run folder's model-cache/, and its own cores answer from there.
package distributed
