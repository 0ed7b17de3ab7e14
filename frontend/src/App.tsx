/** The console's routes; every page is its own chunk (route-level code splitting), and every view is a URL. */
import { lazy } from "react";
import { Navigate, Route, Routes, useParams } from "react-router-dom";
import { Shell } from "./layout/Shell";

const ClustersPage = lazy(() => import("./pages/ClustersPage"));
const CreateClusterPage = lazy(() => import("./pages/create/CreateClusterPage"));
const ImportClusterPage = lazy(() => import("./pages/import/ImportClusterPage"));
const ClusterDetailPage = lazy(() => import("./pages/ClusterDetailPage"));
const NotFoundPage = lazy(() => import("./pages/NotFoundPage"));
const OperationsPage = lazy(() => import("./pages/operations/OperationsPage"));
const OperationDetailPage = lazy(() => import("./pages/operations/OperationDetailPage"));
const JobsPage = lazy(() => import("./pages/training/JobsPage"));
const JobDetailPage = lazy(() => import("./pages/training/JobDetailPage"));
const InferencePage = lazy(() => import("./pages/inference/InferencePage"));
const DeploymentDetailPage = lazy(() => import("./pages/inference/DeploymentDetailPage"));
const AuditPage = lazy(() => import("./pages/audit/AuditPage"));
const MonitoringPage = lazy(() => import("./pages/monitoring/MonitoringPage"));
const TrainingPlansPage = lazy(() => import("./pages/trainingPlans/TrainingPlansPage"));
const SpacesPage = lazy(() => import("./pages/spaces/SpacesPage"));

export function App() {
  return (
    <Shell>
      <Routes>
        <Route path="/" element={<Navigate to="/clusters" replace />} />
        <Route path="/clusters" element={<ClustersPage />} />
        <Route path="/clusters/create" element={<CreateClusterPage />} />
        <Route path="/clusters/import" element={<ImportClusterPage />} />
        <Route path="/clusters/:clusterTag" element={<ClusterDetailPage />} />
        <Route path="/clusters/:clusterTag/jobs" element={<JobsPage />} />
        <Route path="/clusters/:clusterTag/jobs/:jobName" element={<JobDetailPage />} />
        <Route path="/clusters/:clusterTag/inference" element={<InferencePage />} />
        <Route path="/clusters/:clusterTag/inference/deployments" element={<ModelServersTab />} />
        <Route path="/clusters/:clusterTag/inference/deployments/:name" element={<DeploymentDetailPage />} />
        <Route path="/clusters/:clusterTag/monitoring" element={<MonitoringPage />} />
        <Route path="/clusters/:clusterTag/spaces" element={<SpacesPage />} />
        <Route path="/operations" element={<OperationsPage />} />
        <Route path="/operations/:operationId" element={<OperationDetailPage />} />
        <Route path="/audit" element={<AuditPage />} />
        <Route path="/training-plans" element={<TrainingPlansPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Shell>
  );
}

/** The breadcrumb above a model server's page: the Inference page's model servers tab. */
function ModelServersTab() {
  const clusterTag = useParams().clusterTag ?? "";
  return <Navigate to={`/clusters/${encodeURIComponent(clusterTag)}/inference?tab=deployments`} replace />;
}
