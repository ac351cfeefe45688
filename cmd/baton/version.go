package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/baton-lab/baton/internal/version"
)

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print baton's version and the Go version it was built with",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(g.stdout, "baton %s %s %s/%s\n", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
