package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/baton-lab/baton/reports"
)

// session is a run folder as one [Run] holds it: locked, its manifest read
// or made, its store open and every stored row checked.
type session struct {
	runDir   string
	lock     *folderLock
	man      *Manifest
	pl       *plan
	s        *store
	done     bitset
	skipped  int
	complete bool // the run had finished before this session
}

// release closes the store (when open) and gives the folder's lock up.
func (ses *session) release(log zerolog.Logger) {
	if ses.s != nil {
		if err := ses.s.close(); err != nil {
			log.Error().Err(err).Msg("close run store")
		}
		ses.s = nil
	}
	ses.lock.release()
}

// runSetup is what a session needs from Run: the protocol as loaded, with
// overrides applied, and how it was loaded.
type runSetup struct {
	p    *Protocol
	st   *Stack
	lock lockState
	// devs are the settings opt overrides (see [overrides]), not yet
	// checked against the lock ([deviations]).
	devs           []reports.Deviation
	absPath        string
	trialsOverride bool
	clock          func() time.Time
	log            zerolog.Logger
	ph             *phases
}

// openSession finds or makes the run folder, locks it, removes what killed
// processes left in it, and either starts a new run there or opens the run
// it holds for resuming. Nothing of a run to resume is changed until its
// store has been checked; a run that had finished keeps its manifest as it
// was until this session finishes too.
func openSession(opt Options, rs runSetup) (_ *session, err error) {
	runDir, err := existingRunDir(opt, rs)
	if err != nil {
		return nil, err
	}
	used := false
	if runDir != "" {
		if used, err = folderUsed(runDir); err != nil {
			return nil, err
		}
	}
	// A new run checks everything before it makes its folder.
	var fresh *freshRun
	if !used {
		if fresh, err = checkFresh(opt, rs, runDir); err != nil {
			return nil, err
		}
		if runDir == "" {
			runDir, err = claimRunDir(outDir(opt), runName(rs))
		} else {
			err = os.MkdirAll(runDir, 0o755)
		}
		if err != nil {
			return nil, err
		}
	}
	rs.ph.done("plan")
	lock, err := lockFolder(runDir)
	if err != nil {
		return nil, err
	}
	ses := &session{runDir: runDir, lock: lock}
	defer func() {
		if err != nil {
			ses.release(rs.log)
		}
	}()
	removed, err := RemoveLeftovers(runDir)
	if err != nil {
		return nil, err
	}
	if len(removed) > 0 {
		rs.log.Info().Str("run", runDir).Strs("removed", removed).Msg("removed what a killed process left")
	}
	if used, err = folderUsed(runDir); err != nil { // again, holding the lock
		return nil, err
	}
	switch {
	case used && !opt.Resume:
		return nil, fmt.Errorf("%s: %w", runDir, ErrRunExists)
	case used:
		err = ses.resume(opt, rs)
	default:
		if fresh == nil {
			fresh, err = checkFresh(opt, rs, runDir)
		}
		if err == nil {
			err = ses.start(rs, fresh)
		}
	}
	if err != nil {
		return nil, err
	}
	rs.ph.done("store")
	if err := ses.pl.prepare(); err != nil {
		return nil, err
	}
	rs.ph.done("goldens")
	if err := ses.stamp(opt, rs); err != nil {
		return nil, err
	}
	return ses, nil
}

// stamp records this session in the manifest: the versions, hashes and
// sizes of what runs, the workers, one more session. A run that had
// finished keeps its manifest on disk as it was until it finishes again.
func (ses *session) stamp(opt Options, rs runSetup) error {
	man, pl := ses.man, ses.pl
	if man.Deviations == nil {
		man.Deviations = []reports.Deviation{}
	}
	man.Baton, man.Go = batonVersion(), goVersion()
	man.Mission = MissionRef{Name: pl.mission.Spec().Name, Version: pl.mission.Spec().Version}
	man.Hashes = pl.hashes()
	man.Builds, man.Scenarios, man.Items = len(pl.builds), len(pl.scenarios), pl.total()
	man.Designs = pl.proto.Designs
	man.Models = pl.cores.provenance(man.Models)
	man.Workers = opt.Workers
	if man.Workers <= 0 {
		man.Workers = runtime.NumCPU()
	}
	man.Sessions++
	if ses.complete {
		return nil
	}
	return writeManifest(ses.runDir, man)
}

// existingRunDir returns Options.RunDir or, for a resume, the newest run
// folder of the protocol under Options.OutDir; "" when a new folder is to
// be made.
func existingRunDir(opt Options, rs runSetup) (string, error) {
	if opt.RunDir != "" {
		return opt.RunDir, nil
	}
	if !opt.Resume {
		return "", nil
	}
	return latestRunDir(outDir(opt), runName(rs))
}

func outDir(opt Options) string {
	if opt.OutDir == "" {
		return "out"
	}
	return opt.OutDir
}

// runName is the name of the protocol's run folders:
// <name>-<seed>-<first 8 hex of the protocol hash>, plus -t<trials> when
// the trials are overridden.
func runName(rs runSetup) string {
	p := rs.p
	name := fmt.Sprintf("%s-%d-%s", p.Name, p.Seed, p.SHA256[:8])
	if rs.trialsOverride {
		name += "-t" + strconv.Itoa(p.Trials)
	}
	return name
}

// freshRun is a new run, checked: its plan, its inputs' hash tree and the
// deviations from its locked protocol.
type freshRun struct {
	pl   *plan
	tree InputTree
	devs []reports.Deviation
}

// checkFresh checks a new run before its folder is made: its deviations
// from a locked protocol and everything preflight checks.
func checkFresh(opt Options, rs runSetup, runDir string) (*freshRun, error) {
	devs, err := deviations(opt.ProtocolPath, rs.lock.tree != nil, rs.devs, opt.Deviate, nil)
	if err != nil {
		return nil, err
	}
	pl, tree, err := preflight(rs.p, rs.st, rs.p.Path, opt.ProtocolPath, rs.lock, runDir, nil)
	if err != nil {
		return nil, err
	}
	return &freshRun{pl: pl, tree: tree, devs: devs}, nil
}

// start begins a new run in an empty folder: the protocol and input
// copies, the manifest and a new store.
func (ses *session) start(rs runSetup, fr *freshRun) error {
	p, pl := rs.p, fr.pl
	man := &Manifest{
		Schema:   ManifestSchema,
		Protocol: ManifestProtocol{Name: p.Name, Path: rs.absPath, SHA256: p.SHA256, Locked: rs.lock.tree != nil},
		Settings: p, Seed: p.Seed, Trials: p.Trials,
		Tree: fr.tree, Deviations: fr.devs,
		Started: nowUTC(rs.clock()),
	}
	if err := writeAtomic(filepath.Join(ses.runDir, ProtocolCopy), p.Raw); err != nil {
		return err
	}
	var err error
	if man.Inputs, err = copyInputs(p, ses.runDir); err != nil {
		return err
	}
	if err := pl.keepGenerated(ses.runDir); err != nil {
		return err
	}
	ses.man, ses.pl = man, pl
	if ses.s, err = createStore(filepath.Join(ses.runDir, StoreFile), pl); err != nil {
		return err
	}
	ses.done = newBitset(pl.total())
	return nil
}

// resume opens the run a folder holds: its manifest must name this
// protocol, seed and trials, its inputs and this baton's catalogue,
// scenarios and contracts must hash as they did, and every stored row
// must check.
func (ses *session) resume(opt Options, rs runSetup) error {
	p, runDir := rs.p, ses.runDir
	man, err := ReadManifest(runDir)
	if err != nil {
		return fmt.Errorf("%s: %w (%v)", runDir, ErrForeignRun, err)
	}
	if man.Protocol.SHA256 != p.SHA256 || man.Seed != p.Seed || man.Trials != p.Trials {
		return fmt.Errorf("%s: %w: it ran protocol %s (seed %d, %d trials), this is %s (seed %d, %d trials)",
			runDir, ErrForeignRun, short(man.Protocol.SHA256), man.Seed, man.Trials, short(p.SHA256), p.Seed, p.Trials)
	}
	devs, err := deviations(opt.ProtocolPath, rs.lock.tree != nil, rs.devs, opt.Deviate, man)
	if err != nil {
		return err
	}
	pl, tree, err := preflight(p, rs.st, inputResolver(runDir, man.Inputs), opt.ProtocolPath, rs.lock, runDir, man)
	if err != nil {
		return err
	}
	if h := pl.hashes(); man.Hashes != (Hashes{}) && h != man.Hashes {
		return fmt.Errorf("%s: %w: it ran with catalogue, scenarios and contracts hashing to %s, %s, %s; this baton's hash to %s, %s, %s",
			runDir, ErrForeignRun, short(man.Hashes.Catalogue), short(man.Hashes.Scenarios), short(man.Hashes.Contracts),
			short(h.Catalogue), short(h.Scenarios), short(h.Contracts))
	}
	ses.man, ses.pl = man, pl
	man.Tree, man.Deviations = tree, devs
	path := filepath.Join(runDir, StoreFile)
	exists, err := storeExists(runDir)
	if err != nil {
		return err
	}
	if !exists {
		if man.Complete {
			return damaged("the manifest says the run is complete, and %s is missing", path)
		}
		ses.s, err = createStore(path, pl)
		ses.done = newBitset(pl.total())
		return err
	}
	if ses.s, err = openStore(path); err != nil {
		return fmt.Errorf("%s: %w", runDir, err)
	}
	if err := ses.s.checkMeta(pl); err != nil {
		return fmt.Errorf("%s: %w", runDir, err)
	}
	if ses.done, ses.skipped, err = ses.s.done(pl); err != nil {
		return fmt.Errorf("%s: %w", runDir, err)
	}
	ses.complete = man.Complete
	if ses.complete && ses.skipped != pl.total() {
		return damaged("the manifest says the run is complete, and outcomes holds %d of its %d items", ses.skipped, pl.total())
	}
	return nil
}

// hashes are the plan's catalogue, scenarios and contracts hashes.
func (pl *plan) hashes() Hashes {
	return Hashes{Catalogue: pl.catalogueHash, Scenarios: pl.scenariosHash, Contracts: pl.contractsHash}
}
