import re,sys,statistics as st
runs={}
for line in open(sys.argv[1]):
    m=re.match(r'seed (\d+) (\S+)\s+\d+ pods: alloc 100% ([\d.]+), 130% ([\d.]+), failed (\d+)',line)
    if m: runs.setdefault(m[2],{})[int(m[1])]=(float(m[3]),float(m[4]))
pairs=[p.split(':') for p in sys.argv[2:]]
for a,b in pairs:
    if a not in runs or b not in runs: continue
    seeds=sorted(set(runs[a])&set(runs[b]))
    out=[]
    for k in (0,1):
        d=[runs[a][s][k]-runs[b][s][k] for s in seeds]
        sd=st.stdev(d) if len(d)>1 else 0
        out.append("%s %+.2f ± %.2f (%d/%d better, %d worse)"%(["100%","130%"][k],st.mean(d),sd,sum(x>0 for x in d),len(d),sum(x<0 for x in d)))
    print(f"{a} − {b}: "+"; ".join(out))
for p in runs:
    v=list(runs[p].values())
    print(p, len(v), "100%% %.2f ± %.2f  130%% %.2f ± %.2f"%(st.mean(x[0] for x in v),st.stdev([x[0] for x in v]) if len(v)>1 else 0,st.mean(x[1] for x in v),st.stdev([x[1] for x in v]) if len(v)>1 else 0))
