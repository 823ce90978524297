package watcher

import (
	"context"
	"time"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
)

// ServiceOptions tunes a Service.
type ServiceOptions struct {
	// Resident is true for long-lived processes (serve, watch): sessions are cached in memory and
	// persisted on change. Per-call hooks leave it false: every call loads and saves its session
	// file under a lock.
	Resident bool
	// Now is the clock (time.Now when nil); tests pass a fake.
	Now func() time.Time
}

// Service answers gating requests for one repository with one engine and one state store.
// TODO(runtime owner): this is the agreed skeleton; fill it in.
type Service struct {
	Repo repo.Repo
	Cfg  *config.Config
	opts ServiceOptions
}

// NewService makes the Service for repository r.
func NewService(r repo.Repo, cfg *config.Config, o ServiceOptions) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{Repo: r, Cfg: cfg, opts: o}
}

// Handle serves one request. It never panics on bad input and always returns a Response
// carrying req.ID.
func (s *Service) Handle(ctx context.Context, req Request) Response {
	return Response{ID: req.ID, Error: "not built yet"}
}

// AddFinding records an out-of-band change noticed by the file watcher; every session is told
// about it once, at its next tool call or context injection.
func (s *Service) AddFinding(f Finding) {}

// InvalidateContext drops the cached context block (MEMORY.md changed).
func (s *Service) InvalidateContext() {}

// Close persists what is pending and releases resources.
func (s *Service) Close() error { return nil }
