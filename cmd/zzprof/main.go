package main

import (
	"context"
	"os"
	"runtime/pprof"

	"github.com/baton-lab/baton/experiment"
	"github.com/baton-lab/baton/mission"
	"github.com/baton-lab/baton/mission/invoice"
)

func main() {
	reg, _ := mission.NewRegistry(invoice.New())
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	os.RemoveAll("/tmp/prof-out")
	_, err := experiment.Run(context.Background(), experiment.Options{Missions: reg, OutDir: "/tmp/prof-out", Trials: 4, Workers: 1})
	pprof.StopCPUProfile()
	if err != nil {
		panic(err)
	}
}
