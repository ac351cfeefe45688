package input_test

import (
	"fmt"

	"github.com/baton-lab/baton/input"
)

// A mission reads its own file format by declaring it as Go structs: the
// decoder refuses unknown and duplicate keys, values of the wrong kind and
// non-finite numbers, and checks made afterwards still name file, line
// and field.
func Example() {
	type ticket struct {
		ID       string   `yaml:"id"`
		Priority int      `yaml:"priority"`
		Queue    string   `yaml:"queue"`
		Weight   float64  `yaml:"weight"`
		Tags     []string `yaml:"tags"`
	}
	type file struct {
		Tickets []ticket `yaml:"tickets"`
	}
	src := []byte(`tickets:
  - id: T1
    priority: 0
    queue: biling
    weight: .nan
  - id: T2
    priority: 2
    queue: shipping
    tagz: [vip]
`)
	d := input.NewDecoder("tickets.yaml", input.Options{Kind: "ticket file"})
	var f file
	d.Decode(src, &f)
	// Validation after decoding: name the path, the decoder knows the line.
	for i, t := range f.Tickets {
		p := input.Index("tickets", i)
		d.Check(t.Priority >= 1, p+".priority", "%d: want at least 1", t.Priority)
		d.OneOf(p+".queue", "queue", t.Queue, []string{"billing", "shipping"})
	}
	fmt.Println(d.Err())
	// Output:
	// tickets.yaml:3:15: tickets[0].priority: 0: want at least 1
	// tickets.yaml:4:12: tickets[0].queue: unknown queue "biling", did you mean "billing"? (want one of billing, shipping)
	// tickets.yaml:5:13: tickets[0].weight: want a finite number, got .nan
	// tickets.yaml:9:5: tickets[1].tagz: unknown field, did you mean "tags"? (want one of id, priority, queue, weight, tags)
}
