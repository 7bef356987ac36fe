package observe

import (
	"context"
	"log/slog"
	"time"

	"github.com/kisa-dev/kisa/storage"
)

// PartitionsAhead is how many days of partitions maintenance keeps made
// ahead of today (UTC), today included.
const PartitionsAhead = 3

// Maintainer keeps the observation tables' day partitions: made ahead,
// dropped past the retention.
type Maintainer struct {
	db        *storage.DB
	retention time.Duration
	now       func() time.Time
	log       *slog.Logger
}

// NewMaintainer returns the maintenance of db's observations; a nil now
// is time.Now, a nil log discards.
func NewMaintainer(db *storage.DB, retention time.Duration, now func() time.Time, log *slog.Logger) *Maintainer {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Maintainer{db: db, retention: retention, now: now, log: log}
}

// Maintain makes the partitions of the next PartitionsAhead days and
// drops the days that ended more than the retention ago: a whole day goes
// at once, as a table, instead of row by row.
func (m *Maintainer) Maintain(ctx context.Context) error {
	now := m.now()
	if err := m.db.CreateObservationPartitions(ctx, now, PartitionsAhead); err != nil {
		return err
	}
	dropped, err := m.db.DropObservationsBefore(ctx, now.Add(-m.retention))
	if len(dropped) > 0 {
		m.log.InfoContext(ctx, "expired observations dropped", "partitions", dropped)
	}
	return err
}
