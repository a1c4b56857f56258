package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profiles are the hidden --cpuprofile and --memprofile flags: any command
// can write a pprof CPU profile of its run and a heap profile (allocations
// since the start, and what was live at the end) without a special build.
type profiles struct {
	cpu, mem string
	cpuFile  *os.File
}

// addFlags registers the flags as hidden persistent flags of root.
func (p *profiles) addFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to `FILE` (go tool pprof)")
	f.StringVar(&p.mem, "memprofile", "", "write a heap profile at the command's end to `FILE` (go tool pprof)")
	_ = f.MarkHidden("cpuprofile")
	_ = f.MarkHidden("memprofile")
}

// wrap makes every command under root that runs something start the
// profiles before it and write them after it, whether it fails or not.
func (p *profiles) wrap(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := p.start(); err != nil {
				return err
			}
			err := run(cmd, args)
			return errors.Join(err, p.stop())
		}
	}
	for _, sub := range c.Commands() {
		p.wrap(sub)
	}
}

func (p *profiles) start() error {
	if p.cpu == "" {
		return nil
	}
	f, err := os.Create(p.cpu)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.cpuFile = f
	return nil
}

func (p *profiles) stop() error {
	var errs []error
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--cpuprofile: %w", err))
		}
		p.cpuFile = nil
	}
	if p.mem != "" {
		runtime.GC() // so that the live figures are up to date
		err := writeProfile(p.mem, func(f *os.File) error { return pprof.Lookup("allocs").WriteTo(f, 0) })
		if err != nil {
			errs = append(errs, fmt.Errorf("--memprofile: %w", err))
		}
	}
	return errors.Join(errs...)
}

func writeProfile(name string, write func(*os.File) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
