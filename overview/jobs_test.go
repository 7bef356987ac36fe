package overview

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

func TestCursor(t *testing.T) {
	j := storage.Job{ID: uuid.MustParse("0190c3a4-5b6d-7e8f-9a0b-1c2d3e4f5a6b"),
		CreatedAt: time.Date(2026, 11, 23, 21, 0, 0, 123456000, time.UTC)}
	c := encodeCursor(j)
	got, err := decodeCursor(c)
	if err != nil {
		t.Fatalf("decodeCursor(%q): %v", c, err)
	}
	if want := (storage.JobCursor{CreatedAt: j.CreatedAt, ID: j.ID}); !got.CreatedAt.Equal(want.CreatedAt) || got.ID != want.ID {
		t.Errorf("round trip = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"x", "!!!", "MTIz", // "123": no id
		"LTEuMDE5MGMzYTQtNWI2ZC03ZThmLTlhMGItMWMyZDNlNGY1YTZi", // negative time
		"MTIzLm5vdC1hLXV1aWQ", // "123.not-a-uuid"
		c + "="} {
		if _, err := decodeCursor(bad); !errors.Is(err, kisa.Invalid) {
			t.Errorf("decodeCursor(%q) = %v, want Invalid", bad, err)
		}
	}
}

// jobsUnderTest is a Jobs on the test database and Redis, its clock at *now.
func jobsUnderTest(t *testing.T, now *time.Time) (*Jobs, *storage.DB, *asynq.Inspector) {
	t.Helper()
	db := testenv.Postgres(t)
	rdb := testenv.Redis(t)
	visits := NewVisits(VisitsOptions{Results: testenv.Results(t, rdb, "test:"), Client: asynq.NewClientFromRedisClient(rdb),
		Inspector: asynq.NewInspectorFromRedisClient(rdb), Timing: Timing{Wait: time.Minute, Visit: 30 * time.Second, MaxRetry: 1}})
	js := NewJobs(JobsOptions{Visits: visits, DB: db, Retention: 168 * time.Hour, Now: func() time.Time { return *now }})
	return js, db, asynq.NewInspectorFromRedisClient(rdb)
}

// TestMaintainRemovesExpiredJobs runs the periodic task's handler with a
// clock past the retention of one job but not of another.
func TestMaintainRemovesExpiredJobs(t *testing.T) {
	now := time.Now()
	js, db, _ := jobsUnderTest(t, &now)
	ctx := context.Background()
	acc, err := db.CreateAccount(ctx, "jobs-test-"+testenv.RandomHex(4), true)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(Request{Query: "q", Country: "at", Language: "de"}.View())
	res, _ := json.Marshal(kisa.Result{TakenAt: now})
	done := func() storage.NewJob {
		return storage.NewJob{ID: uuid.New(), Key: "k-" + testenv.RandomHex(4), Request: req, Status: storage.JobDone, Result: res}
	}
	old, fresh := done(), done()
	if _, err := db.CreateJobs(ctx, acc.ID, uuid.Nil, nil, []storage.NewJob{old, fresh}); err != nil {
		t.Fatal(err)
	}
	// The old job was made 2 h before the fresh one.
	if _, err := db.SQL().Exec(`UPDATE overview_jobs SET created_at = created_at - interval '2 hours' WHERE id = $1`, old.ID); err != nil {
		t.Fatal(err)
	}
	// 169 h after the old job, 167 h after the fresh one.
	now = now.Add(167 * time.Hour)
	if err := js.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Get(ctx, acc.ID, old.ID); !errors.Is(err, kisa.NotFound) {
		t.Errorf("expired job: Get = %v, want NotFound", err)
	}
	if _, err := js.Get(ctx, acc.ID, fresh.ID); err != nil {
		t.Errorf("job within retention: Get = %v", err)
	}
}

// TestMaintainRestartsLostJobs: a job stored by a web process that died
// before it enqueued the visit gets its visit from the periodic task.
func TestMaintainRestartsLostJobs(t *testing.T) {
	now := time.Now()
	js, db, inspector := jobsUnderTest(t, &now)
	ctx := context.Background()
	acc, err := db.CreateAccount(ctx, "jobs-test-"+testenv.RandomHex(4), true)
	if err != nil {
		t.Fatal(err)
	}
	r := Request{Query: "lost " + testenv.RandomHex(4), Country: "at", Language: "de"}
	view, _ := json.Marshal(r.View())
	if _, err := db.CreateJobs(ctx, acc.ID, uuid.Nil, nil, []storage.NewJob{{ID: uuid.New(), Key: r.Key(), Request: view, Status: storage.JobQueued}}); err != nil {
		t.Fatal(err)
	}
	if err := js.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := inspector.GetTaskInfo(jobs.QueueOverview, r.Key()); !errors.Is(err, asynq.ErrQueueNotFound) && !errors.Is(err, asynq.ErrTaskNotFound) {
		t.Fatalf("a job younger than a period was re-enqueued (err %v)", err)
	}
	now = now.Add(2 * jobs.MaintenanceEvery)
	if err := js.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	info, err := inspector.GetTaskInfo(jobs.QueueOverview, r.Key())
	if err != nil {
		t.Fatalf("lost job's visit not enqueued: %v", err)
	}
	var p jobs.OverviewPayload
	json.Unmarshal(info.Payload, &p)
	if p.Run == "" {
		t.Error("the re-enqueued task has no run id")
	}
	p.Run = "" // random, per enqueueing
	if diff := cmp.Diff(jobs.OverviewPayload{Key: r.Key(), Query: r.Query, CountryCode: "at", LanguageCode: "de"}, p); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
}
