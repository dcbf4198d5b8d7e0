package trace

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadDLRM checks that any input gives instances or a *ParseError,
// never a panic, that accepted instances obey the reader's rules, and
// that the gang mapping of what was accepted returns an instance or an
// error, never a panic.
func FuzzReadDLRM(f *testing.F) {
	f.Add([]byte(dlrmHeader + "instance_0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n"))
	f.Add([]byte(dlrmHeader + "i,CN,a,64,64,0,0,1,1,320.0,320.0,255.0,300.0,-1,1435629.0,1435629.0,1435760.0\nj,HN,a,8,8,1,1,25,25,120.0,120.0,680.0,800.0,8,475.00000000000006,475.00000000000006,NaN\n"))
	f.Add([]byte(dlrmHeader + "i,CN,a,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,1e12,1e12,1e12\n"))
	f.Add([]byte("\ufeffinstance_sn,role,app_name,cpu_request,gpu_request,rdma_request,memory_request,disk_request,max_instance_per_node,creation_time,scheduled_time,deletion_time\ni,CN,a,1,0,0,0,0,-1,0,0,0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ins, err := ReadDLRM(bytes.NewReader(b), "f.csv")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		for _, in := range ins {
			if in.Name == "" || in.App == "" || in.CPU < 0 || in.GPU < 0 || in.RDMA < 0 || in.RDMA > 100 ||
				!(in.MemoryGiB >= 0) || !(in.DiskGiB >= 0) || in.MaxPerNode == 0 || in.MaxPerNode < -1 ||
				(in.HasCreation && in.HasDeletion && in.Deletion < in.Creation) {
				t.Fatalf("accepted bad instance %+v", in)
			}
		}
		if len(ins) > 0 {
			_, _ = DLRMGangInstance(ins, DLRMGangOptions{CNNodes: 2, HNNodes: 1, SlotSeconds: 1e6})
		}
	})
}
