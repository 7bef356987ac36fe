package jobs

import (
	"time"

	"github.com/hibiken/asynq"
)

// TypeObservationMaintenance is the periodic task that makes the day
// partitions of the observations ahead of time and drops the days past
// their retention (KISA_OBSERVATION_RETENTION).
const TypeObservationMaintenance = "observations:maintain"

// ObservationMaintenanceEvery is how often that task runs.
const ObservationMaintenanceEvery = 10 * time.Minute

// NewObservationMaintenanceTask builds the periodic task, unique for a
// little less than its period, like NewJobMaintenanceTask.
func NewObservationMaintenanceTask() *asynq.Task {
	return asynq.NewTask(TypeObservationMaintenance, nil, asynq.Queue(QueueMaintenance),
		asynq.Unique(ObservationMaintenanceEvery-5*time.Second), asynq.MaxRetry(0), asynq.Timeout(time.Minute))
}
