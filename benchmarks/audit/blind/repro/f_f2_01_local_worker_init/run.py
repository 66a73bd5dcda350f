# f_f2_01: points2surf shape. full_run.py is guarded and calls into source/ modules.
# cases: local_init (hazard WSP202: seed_train_worker defined inside points_to_surf_train),
#        module_init (safe twin), eval_cache (safe: dataset keeps Cache(loadfunc=Class.method), no init fn),
#        pool_starmap (safe: Pool.starmap of a module-level function, as utils_mp.start_process_pool)
import sys
from p2s import train, sdf

if __name__ == '__main__':
    case = sys.argv[1]
    workers = 2
    if case == 'local_init':
        print('samples', train.points_to_surf_train(workers, local_init=True))
    elif case == 'module_init':
        print('samples', train.points_to_surf_train(workers, local_init=False))
    elif case == 'eval_cache':
        print('samples', train.points_to_surf_eval(workers))
    elif case == 'pool_starmap':
        print('results', sdf.implicit_surface_to_mesh_directory(workers))
    else:
        raise SystemExit('unknown case')
    print('OK')
